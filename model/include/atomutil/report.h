/*
 * atomutil/report.h - a report: launches with their counters, kernel code and results, evaluated
 * with one table, and rendered as a human table, CSV or JSON (part of atomutil/model.h).
 */
#ifndef ATOMUTIL_REPORT_H
#define ATOMUTIL_REPORT_H

#include "atomutil/advisor.h"
#include "atomutil/queue.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- report */

/* One shared-atomic SASS instruction of a launch, over all SMs (per-SM mode). */
typedef struct au_instr {
    char function[256]; /* mangled */
    unsigned pc;
    char opcode[32];
    char family[AU_FAMILY_MAX];
    char source[160]; /* "file.cu:64" when line info exists, else "" */
    double jobs, wavefronts, threads;
    double busy; /* its share of the busy cycles, summed over SMs */
} au_instr;

/* One class of a launch's jobs (--opcodes): the jobs of one table family. */
typedef struct au_class_share {
    char family[AU_FAMILY_MAX];
    size_t ninstr; /* its shared-atomic instructions in the kernel's code */
    double jobs;   /* its jobs, GPU-wide (the counters' CAS / non-CAS split) */
    double busy;   /* its share of B, cycles per SM */
} au_class_share;

#define AU_MAX_CLASSES 16

/* Opcode classes of a launch (atomutil-profile --opcodes, docs/opcodes.md): the shared-atomic
 * instructions of its kernel's code, and the launch priced class by class. */
typedef struct au_opsplit {
    size_t ninstr;
    au_instr *instr; /* the kernel's ATOMS instructions in code order: function, pc, opcode,
                                family, source (no counts: jobs, wavefronts, busy are 0) */
    size_t nclass;
    au_class_share cls[AU_MAX_CLASSES]; /* by jobs, largest first */
    au_result by_family;                /* this launch priced with the single --family, for comparison */
    char classes[128];                  /* "cast_spin 98%, popc_inc 2%" (shares of jobs) */
    au_flags flags;                     /* AU_F_UNKNOWN_OPCODE, AU_F_SPLIT_ESTIMATED, AU_F_OPCODE_MISMATCH */
    char *nodes; /* a CUDA graph launch: its kernels (function names) and their families, "hist (add),
                    reduce (-)"; NULL otherwise (malloc'ed) */
} au_opsplit;
void au_opsplit_free(au_opsplit *o);

/* Shared-memory load sites of a kernel's code, relative to its CAS loops (from its listing;
 * docs/model.md, "CAS loops").  A CAS loop is an innermost loop (a backward branch over at most 24
 * instructions, no loop inside) that holds an ATOMS.CAST.SPIN*. */
typedef struct au_load_sites {
    int known;      /* the kernel's listing was read */
    int cas_loops;  /* CAS loops in the code */
    int loop_loads; /* LDS inside them: the attempt's load, or a conditional loop's reload */
    int hot_loads;  /* other shared loads (LDS, LDSM) inside any other loop */
    int cold_loads; /* other shared loads outside every loop: each runs at most once per warp */
} au_load_sites;

/* au_launch.dims: grid and block known (a source without those columns leaves them out). */
enum { AU_DIMS_GRID = 1u, AU_DIMS_BLOCK = 2u };

/* One kernel launch of a report. */
typedef struct au_launch {
    long long id;             /* launch id in its source (ncu "ID") */
    long long pid;            /* process id, -1 when unknown */
    char *kernel;             /* full (demangled) kernel name */
    unsigned grid[3];         /* blocks per grid, x y z (ncu's "Grid Size" (528, 1, 1)), read once at import */
    unsigned block[3];        /* threads per block, x y z ("Block Size") */
    unsigned dims;            /* which of them the source gave: AU_DIMS_GRID | AU_DIMS_BLOCK */
    unsigned file;            /* the file it was read from: an index into au_report.files (0 with one) */
    char device[AU_NAME_MAX]; /* device name, "" when unknown */
    int cc_major, cc_minor;   /* 0.0 when unknown */
    int sm_count;             /* 0 when unknown */
    double duration_ns;       /* gpu time, < 0 when unknown */
    au_counters ctr;
    char missing_names[256]; /* names of the missing metrics, comma separated */
    au_result res;
    au_opsplit *ops;                   /* opcode classes, NULL unless --opcodes data exists */
    au_load_sites sites;               /* load sites of the kernel's code (known = 0 without its listing),
                                 set with code before au_launch_eval */
    const struct au_launch_code *code; /* the kernel's code, attached before au_launch_eval (not
                                          owned; NULL: unknown); the evaluation clears it */
    unsigned evals;                    /* times evaluated: 1 after au_launch_eval */
    au_advice *adv;                    /* what each cure would buy (atomutil/advisor.h), set by
                                          au_launch_eval; NULL where nothing is to cure */
} au_launch;

/* The code of a launch's kernel (atomutil-profile --opcodes), attached before its evaluation:
 * instr[0..n) its instructions (opcode, function, pc, source; others than ATOMS and ATOM are
 * ignored); nodes, for a CUDA graph launch, its kernels and their families ("hist (add), reduce
 * (-)"; copied into the launch's opcode classes), else NULL; counted: each instruction's jobs field
 * holds its warp-level executions in the launch (an Nsight Compute report's per-instruction
 * counts), which then split the counters' jobs among the classes exactly. */
typedef struct au_launch_code {
    const au_instr *instr;
    size_t n;
    const char *nodes;
    int counted;
} au_launch_code;

/* Evaluates launch l, once: priced with the table (the SM count of the launch, else the table's;
 * flags for another GPU's or architecture's table) as the single family `family`; then, where its
 * kernel's code is attached (l->code) and the code can price it (au_launch_wants_code), by the
 * opcodes of that code (docs/opcodes.md): each ATOMS instruction gets its table family from the
 * opcode (unknown opcodes and families the table lacks: add, flag AU_F_UNKNOWN_OPCODE); the
 * counters split the jobs: the CAS counter's jobs go to the CAS-class families (ATOMS.CAS*,
 * .CAST.SPIN*), the rest to the others; two or more families of one kind share their kind's jobs
 * by instruction count (AU_F_SPLIT_ESTIMATED); a counter share the code cannot hold (CAS jobs
 * without a CAS-class opcode, or the reverse) goes to the kind the code has (AU_F_OPCODE_MISMATCH).
 * Every class has the launch's a, N and T; l->res is the class result (au_model_eval_classes) and
 * l->ops->by_family the single family's, for comparison.  l->code is cleared.  A launch evaluated
 * before is refused (AU_E_INVAL): every launch is evaluated once. */
int au_launch_eval(au_launch *l, const au_table *t, const char *family, const au_thresholds *thr, au_busy_mode busy);
/* After its evaluation: whether the kernel's code prices launch l (it has a U, and shared-atomic
 * jobs or wavefronts without jobs, flag unpriced_wavefronts, that generic atomics may explain). */
int au_launch_wants_code(const au_launch *l);
/* Before its evaluation: whether the code may price launch l (au_launch_wants_code may say yes
 * after it): its counters pass the checks of au_model_eval, and it has jobs or wavefronts.  The
 * launches a caller attaches code to. */
int au_launch_may_want_code(const au_launch *l, const au_table *t, au_busy_mode busy);

/* What the report shows (atomutil-profile --summary, --per-launch; docs/cli.md, "Summary"):
 * AU_VIEW_AUTO is the per-kernel summary in the human table when the report has more than
 * AU_SUMMARY_AUTO_LAUNCHES launches, else every launch; CSV and JSON show every launch. */
typedef enum au_view { AU_VIEW_AUTO = 0, AU_VIEW_LAUNCHES, AU_VIEW_SUMMARY } au_view;
#define AU_SUMMARY_AUTO_LAUNCHES 50
#define AU_NAME_WIDTH_DEFAULT    32
/* The width the human tables keep to without --wide (a terminal's): their key columns, a legend
 * of every word they print; --wide shows every column, the CSV and JSON every figure. */
#define AU_REPORT_COLUMNS        120

typedef struct au_report {
    au_launch *launches;
    size_t count, cap;
    char source[512];      /* where the counters came from (file name) */
    const au_table *table; /* not owned */
    char family[AU_FAMILY_MAX];
    au_thresholds thr;
    au_busy_mode busy;   /* AU_BUSY_SATURATED after au_report_init */
    au_view view;        /* AU_VIEW_AUTO after au_report_init */
    char **files;        /* with several files (au_report_set_files): their names, in order, which each */
    size_t nfiles;       /* launch's file indexes; NULL, 0 with one (source names it) */
    unsigned name_width; /* the human tables' kernel column (AU_NAME_WIDTH_DEFAULT; 0: the widest name) */
    int wide;            /* the human tables with every column (--wide); else within AU_REPORT_COLUMNS */
    long long replayed;  /* launches the injection library measured by kernel replay, and the */
    double replay_s;     /* seconds of their driver calls (the counters files' replay lines; 0: none) */
} au_report;

void au_report_init(au_report *r);
void au_report_free(au_report *r);
/* The report reads several files (names[0..n), copied): launches say which by their index, the
 * renderers add a file column and, in the summary, one block per file.  AU_OK or AU_E_NOMEM. */
int au_report_set_files(au_report *r, const char *const *names, size_t n);
/* Appends a zeroed launch; returns it or NULL on out-of-memory. */
au_launch *au_report_add(au_report *r);
/* Evaluates every launch once (au_launch_eval, with the report's busy mode), by its attached code
 * where it has some, else as family. */
int au_report_eval(au_report *r, const au_table *t, const char *family, const au_thresholds *thr);

typedef enum au_format { AU_FMT_TABLE = 0, AU_FMT_CSV, AU_FMT_JSON } au_format;
int au_report_render(const au_report *r, au_format fmt, FILE *out);
/* Two evaluated reports side by side, kernel by kernel (atomutil-profile --compare A B): time,
 * jobs, a, U, verdict and the change, as a human table (AU_FMT_TABLE) or CSV.  AU_OK, or < 0
 * (AU_E_INVAL: another format). */
int au_compare_render(const au_report *a, const au_report *b, au_format fmt, FILE *out);

/* A kernel of report A and one of report B that a cure made of it (atomutil-profile --compare A B
 * --pair KA=KB[:CURE]): kernels by their short names (the summary's); cure the one to predict B by,
 * or -1 for A's best (docs/advisor.md, "Variant comparison"). */
typedef struct au_kernel_pair {
    const char *a, *b;
    int cure;
} au_kernel_pair;
#define AU_MAX_PAIRS 32
/* The pairs as a table or CSV: per pair the measured time and busy cycles of both kernels (means per
 * launch) and the advisor's prediction for B from A's launches.  AU_E_NOTFOUND (message naming the
 * kernel and the report) where a kernel is not in its report. */
int au_compare_pairs_render(const au_report *a, const au_report *b, const au_kernel_pair *pairs, size_t n,
                            au_format fmt, FILE *out);
/* ---------------------------------------------------------------- kernels */

/* One kernel of a report: its launches, grouped by short name (au_kernel_short_dup, as --compare
 * groups them), summed. */
typedef struct au_kernel_stat {
    char *name;                        /* the short name: the key */
    size_t first;                      /* index of its first launch in the report */
    size_t launches, evaluated;        /* its launches; those with a verdict other than unknown */
    size_t timed;                      /* its launches with a GPU time */
    double time_ns;                    /* their GPU time (gpu__time_duration.sum), summed */
    double jobs, cas_jobs, wavefronts; /* raw counters of the evaluated launches, GPU-wide, summed */
    double loop_entries;               /* ... their CAS loops' entries, where counted (AU_C_LOOP_ENTRIES) */
    size_t entry_launches;             /* the evaluated launches with their CAS loops' entries */
    double entry_load_cycles;          /* ... their entries' loads' wait (au_advice), cycles x entries, summed */
    int entry_loads_unpriced;          /* AU_ENTRY_* of those launches whose entries' loads were not priced, or-ed */
    int match_unpriced;                /* a launch's aggregate cure without its MATCH.ANY priced (au_advice) */
    double l2_hit_sectors;             /* ... their global reads' L2-hit sectors, where counted (AU_C_L2_HIT) */
    double l2_jobs;                    /* the jobs of those launches */
    size_t l2_launches;                /* the evaluated launches with the L2-hit counter */
    double busy, active;               /* busy and active cycles per SM of the evaluated launches, summed */
    double util;                       /* busy / active: U weighted by each launch's active cycles; 0 without */
    double util_min, util_max;         /* the evaluated launches' smallest and largest U */
    au_verdict verdict;                /* of util; unknown when no launch was evaluated */
    au_verdict worst, common;          /* the launches' most severe verdict (atomic-bound, uncertain,
                                   significant, not-limiting, unknown) and most frequent one (a tie:
                                   the more severe) */
    size_t verdicts[AU_VERDICT_UNCERTAIN + 1]; /* launches per verdict */
    size_t nclass;
    au_class_share cls[AU_MAX_CLASSES]; /* the evaluated launches' jobs by the table family they were
                                           priced as (opcode classes, else the report's family),
                                           largest first */
    char classes[128];                  /* "add 98%, cas 2%" (shares of those jobs) */
    /* the advisor (docs/advisor.md), over its timed launches: each cure's predicted time and busy
     * cycles, summed (a launch the cure does not apply to counts as it is), and the cure that saves
     * the most (-1: none), with what it saves */
    double cure_ns[AU_CURE_COUNT], cure_lo_ns[AU_CURE_COUNT], cure_hi_ns[AU_CURE_COUNT];
    double cure_busy[AU_CURE_COUNT];
    size_t advised; /* its timed launches with advice */
    int best;
    double save_ns;
} au_kernel_stat;

/* The kernels of a report and the measured GPU time. */
typedef struct au_summary {
    au_kernel_stat *k;
    size_t n;          /* kernels, in the order of their first launch (au_summary_sort_by_time) */
    size_t *of_launch; /* per launch of the report (nall of them): its kernel's index in k */
    size_t nall;
    size_t launches, timed;
    double time_ns;                            /* the measured GPU time: of every launch with one */
    double time_bound_ns, time_significant_ns; /* of the launches with verdict atomic-bound, significant */
} au_summary;

/* Groups r's launches into kernels.  AU_OK or AU_E_NOMEM. */
int au_summary_make(const au_report *r, au_summary *s);
/* The same for the launches of one file of r (au_launch.file == file); the others' of_launch is
 * AU_NO_KERNEL. */
int au_summary_make_file(const au_report *r, size_t file, au_summary *s);
#define AU_NO_KERNEL ((size_t)-1)
/* Kernels by GPU time, the largest first (ties: in the order of their first launch).  AU_OK or
 * AU_E_NOMEM. */
int au_summary_sort_by_time(au_summary *s);
/* The kernel of s with the short name kernel, NULL where s has none. */
const au_kernel_stat *au_summary_find(const au_summary *s, const char *kernel);
void au_summary_free(au_summary *s);

/* The human tables' kernel names (docs/cli.md, "Names in the output"): full[0..n) are short names
 * (not owned); each is shown by its function name (au_kernel_function) in at most width columns
 * (the column is as wide as the widest name shown, width at most; 0: no limit), numbered "[n]" where it is cut ('~') or where kernels of other short names share
 * it, the numbers given in the order the cells are written. */
typedef struct au_names {
    size_t n, width;
    const char *const *full;
    const char **base; /* per name: its function name, len[k] bytes */
    size_t *len;
    unsigned char *need; /* numbered */
    size_t *num;         /* its number, 0 before its first cell */
    size_t *order;       /* the names numbered so far, next of them */
    size_t next;
    char *buf;
    size_t bufsize;
} au_names;
int au_names_init(au_names *nm, const char *const *full, size_t n, size_t width);
/* The cell of name k, as plain text, padded to the column's width when pad. */
void au_names_put(au_names *nm, size_t k, int pad, FILE *out);
/* After a table: "kernel names numbered above, in full:", one line per number (nothing without),
 * wrapped at wrap columns (0: not wrapped). */
void au_names_notes(const au_names *nm, size_t wrap, FILE *out);
void au_names_free(au_names *nm);
/* The function name inside kernel, as Nsight Compute's --kernel-name-base function prints it: the
 * short name's last component, without namespaces, classes and template arguments
 * ("void at::native::reduce_kernel<512, 1, ...>(...)" -> "reduce_kernel"; operator names keep
 * their symbol, "operator<<").  Returns its length; *start: where it begins inside kernel. */
size_t au_kernel_function(const char *kernel, const char **start);
/* The short name inside kernel (au_kernel_short_dup without the copy): its length and start. */
size_t au_kernel_short_span(const char *kernel, const char **start);

/* Short kernel name for humans: drops the return type and the parameter list and truncates to
 * width columns with a trailing '~' (0: no limit but size), written as plain text (control
 * characters '?', ill-formed UTF-8 U+FFFD: au_fput_text).  Writes into buf. */
char *au_kernel_short(const char *kernel, char *buf, size_t size, size_t width);
/* The same short name in full, as it is (not cleaned), malloc'ed; NULL when out of memory. */
char *au_kernel_short_dup(const char *kernel);

#ifdef __cplusplus
}
#endif
#endif
