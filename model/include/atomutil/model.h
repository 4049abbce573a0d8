/*
 * atomutil/model.h - the one public header of atomutil's model library (pure C11, no CUDA).
 *
 * The model library owns the service-time table S(family, n, a, c) (format v1, docs/table-format.md),
 * its interpolation, the load-dependent single-server queue model that turns one kernel launch's
 * counters into busy time and utilization of the shared-memory atomic unit, and the renderers of
 * the report (human table, CSV, JSON).  Nothing here calls exit(): every fallible function returns
 * AU_OK (0) or a negative au_status and leaves a one-line description in au_last_error().
 */
#ifndef ATOMUTIL_MODEL_H
#define ATOMUTIL_MODEL_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AU_VERSION_STRING "0.1.0"
#define AU_TABLE_FORMAT_VERSION 1

/* ---------------------------------------------------------------- errors */

typedef enum au_status {
    AU_OK = 0,
    AU_E_IO = -1,       /* file cannot be opened, read or written */
    AU_E_PARSE = -2,    /* malformed input: the message names file and line */
    AU_E_NOMEM = -3,    /* out of memory */
    AU_E_INVAL = -4,    /* invalid argument from the caller */
    AU_E_NOTFOUND = -5, /* no such family / no table fits / nothing usable */
} au_status;

/* Short name of a status ("parse error", ...). */
const char *au_strerror(int status);
/* Detail of the last failure in this thread, e.g. "t.csv:12: duplicate row add,4,1,0". Never NULL. */
const char *au_last_error(void);

/* ---------------------------------------------------------------- table */

#define AU_NAME_MAX 128
#define AU_FAMILY_MAX 32
#define AU_A_MAX 32 /* serialized wavefronts per warp-instruction: 1..32 */

/* Metadata carried by a table (the '# key: value' lines of format v1). Strings are NUL-terminated;
 * numbers are 0 / empty when a key is absent (only the required keys are always present). */
typedef struct au_table_meta {
    char gpu_name[AU_NAME_MAX];       /* required, e.g. "NVIDIA H200" */
    int cc_major, cc_minor;           /* required: compute capability */
    int sm_count;                     /* required */
    int max_warps_per_sm;             /* required: upper bound of n */
    char method[16];                  /* required: "steady" or "burst" */
    double sm_clock_mhz;              /* SM clock seen during calibration */
    char cuda_version[32];            /* CUDA runtime/toolkit version */
    char driver_version[32];          /* driver version */
    int jobs_per_warp;                /* K of the steady method (1 for burst) */
    int repetitions;                  /* repetitions per grid point */
    char date[32];                    /* ISO 8601 date of the measurement */
    char tool_version[32];            /* atomutil version that measured it */
    char status[16];                  /* "measured" or "provisional" */
    char note[256];                   /* free text, one line */
} au_table_meta;

/* One measured grid point: median service time per job and its spread, in SM cycles.  A table
 * holds finite values, 0 < min <= service <= max <= AU_SERVICE_CYCLES_MAX and mad <= that bound:
 * the shipped tables' largest is 255 cycles (a 32-way CAS job), and beyond a million cycles per
 * job a value is no measurement (near DBL_MAX, it made U a NaN). */
#define AU_SERVICE_CYCLES_MAX 1e6
typedef struct au_sample {
    double service_cycles; /* median over repetitions */
    double min_cycles;
    double max_cycles;
    double mad_cycles; /* median absolute deviation */
} au_sample;

typedef struct au_table au_table;

/* Loads and validates a format-v1 table.  On error returns < 0, *out stays NULL and
 * au_last_error() reads "PATH:LINE: what is wrong". */
int au_table_load(const char *path, au_table **out);
/* Reads and validates only a table's metadata (the lines before the header, checked as
 * au_table_load checks them); the rows are not read.  Errors as au_table_load. */
int au_table_load_meta(const char *path, au_table_meta *out);
/* Same as au_table_load from a memory buffer; name is used in messages. */
int au_table_parse(const char *name, const char *buf, size_t len, au_table **out);
/* Writes the table in format v1 (metadata comments, header, rows sorted by family, n, a, c). */
int au_table_write(const au_table *t, FILE *f);
int au_table_save(const au_table *t, const char *path);
void au_table_free(au_table *t);

/* Building a table (calibration): new, add points, then finalize, which sorts and validates the
 * grid exactly as au_table_load does. */
int au_table_new(const au_table_meta *meta, au_table **out);
int au_table_add(au_table *t, const char *family, int n, int a, int c, const au_sample *s);
int au_table_finalize(au_table *t);

const au_table_meta *au_table_get_meta(const au_table *t);
/* Path the table was loaded from ("" when built in memory). */
const char *au_table_path(const au_table *t);
size_t au_table_family_count(const au_table *t);
const char *au_table_family_name(const au_table *t, size_t i);
int au_table_has_family(const au_table *t, const char *family);
/* Largest n of a family's grid (0 if the family is missing). */
int au_table_n_max(const au_table *t, const char *family);
/* Largest a of a family's grid (0 if the family is missing). */
int au_table_a_max(const au_table *t, const char *family);
/* Exact grid point, AU_E_NOTFOUND when (n, a, c) is not a measured point. */
int au_table_lookup(const au_table *t, const char *family, int n, int a, int c, au_sample *out);

/* Flags attached to interpolated values and model results: AU_F_<id> = 1u << bit, one line each
 * in flags.def (name and meaning there; docs/model.md's "Flags" table lists the same). */
enum {
#define AU_FLAG(id, bit, name, meaning) AU_F_##id = 1u << (bit),
#include "atomutil/flags.def"
#undef AU_FLAG
};
/* The flags of a launch whose counters give no U (missing or not right): verdict unknown, and no
 * model figure is reported. */
#define AU_F_UNUSABLE (AU_F_MISSING | AU_F_INCONSISTENT | AU_F_IMPLAUSIBLE | AU_F_WRONG_UNIT)
/* The bounds of those checks: an SM issues at most four warp-instructions per cycle (one per
 * SMSP); U at the saturated service time reaches 108 % on recorded launches (model error,
 * docs/validation.md), so 150 % is beyond what the hardware can do. */
#define AU_ISSUE_PER_CYCLE 4.0
#define AU_U_IMPLAUSIBLE 1.5
/* The flags that come with a range of U (util_lo..util_hi). */
#define AU_F_RANGE                                                                                 \
    (AU_F_LOOP_LOADS_ESTIMATED | AU_F_DSMEM_LOCAL_ESTIMATED | AU_F_DSMEM_ROW_RANGE | AU_F_DSMEM_MIXED | \
     AU_F_GENERIC_SPACE)
/* Writes the names of the set flags, comma separated ("clamp_n_high,queue_estimated"), or "" when
 * none; returns buf. */
char *au_flags_string(unsigned flags, char *buf, size_t size);

/* S(n, a, c) for real-valued arguments: c of the n queued jobs are CAS (so c/n is the CAS share).
 * Linear interpolation along c (at the CAS share c/n of each grid n) and along a, and along n of
 * the queue's total time T = n * S, then S = T / n, as in the source paper.  Exact at grid points,
 * continuous inside the grid; outside it the arguments are clamped and *flags gets AU_F_CLAMP_*.
 * flags may be NULL. */
int au_table_interp(const au_table *t, const char *family, double n, double a, double c,
                    double *service_cycles, unsigned *flags);

/* Table selection: scans DIR for *.csv tables and picks one for a GPU.  Rule (docs/table-format.md):
 * 1. a table whose gpu_name equals gpu_name (case-insensitive) and whose compute capability is
 *    cc_major.cc_minor; 2. else a table of the same compute capability (flag AU_F_TABLE_OTHER_GPU);
 * among several candidates of one rule, the file name that sorts first.  gpu_name may be NULL or
 * "" (unknown).  Only the metadata of each file is read (au_table_load_meta): files whose
 * metadata fail to read are skipped and counted in *skipped (may be NULL); a picked file's rows
 * are checked when it is loaded.
 * On success *path_out is malloc'ed (caller frees); AU_E_NOTFOUND when no table fits. */
int au_table_find(const char *dir, const char *gpu_name, int cc_major, int cc_minor,
                  char **path_out, unsigned *flags, int *skipped);

/* ---------------------------------------------------------------- queue model */

/* Counter presence bits of au_counters.have. */
enum {
    AU_C_JOBS = 1u << 0,
    AU_C_CAS = 1u << 1,
    AU_C_WAVEFRONTS = 1u << 2,
    AU_C_ACTIVE_CYCLES = 1u << 3,
    AU_C_WARPS = 1u << 4,
    AU_C_QUEUE = 1u << 5, /* a measured queue length (overrides warps) */
    AU_C_WAVEFRONTS_MAX = 1u << 6, /* shared-atomic wavefronts of the busiest SM (optional) */
    AU_C_ACTIVE_MAX = 1u << 7,     /* active cycles of the longest-active SM (optional) */
    AU_C_SHARED_WAVEFRONTS = 1u << 8, /* all shared-memory wavefronts: loads, stores, atomics (optional) */
    AU_C_LD_INST = 1u << 9,        /* shared-memory load warp-instructions, LDS (optional) */
    AU_C_ST_INST = 1u << 10,       /* shared-memory store warp-instructions, STS (optional) */
    AU_C_GENERIC = 1u << 11,       /* generic-address atomic warp-instructions, ATOM (cluster set) */
    AU_C_DSHARED_WF = 1u << 12,    /* wavefronts sent to other SMs' shared memory (cluster set) */
    AU_C_DSHARED_XBAR = 1u << 13,  /* cycles the SM-to-SM (DSMEM) interface was busy (cluster set) */
    AU_C_CLUSTER = 1u << 14,       /* the launch's cluster size (blocks per cluster) */
    AU_C_DSHARED_SECT = 1u << 15,  /* sectors of requests to other SMs' shared memory, every
                                      operation: loads, stores, atomics (cluster set, optional) */
    AU_C_DSHARED_SECT_ATOM = 1u << 16, /* ... of which atomics' (cluster set, optional) */
};
/* The sector counters that tell DSMEM atomics from other DSMEM traffic (docs/model.md, "DSMEM"). */
#define AU_C_DSHARED_SECTORS (AU_C_DSHARED_SECT | AU_C_DSHARED_SECT_ATOM)
/* The counters that price distributed-shared-memory atomics (docs/model.md, "DSMEM"). */
#define AU_C_DSMEM (AU_C_GENERIC | AU_C_DSHARED_WF | AU_C_DSHARED_XBAR)
/* The counters that price the loads of CAS loops (docs/model.md, "CAS loops"). */
#define AU_C_LOOP_LOADS (AU_C_SHARED_WAVEFRONTS | AU_C_LD_INST | AU_C_ST_INST)
#define AU_C_REQUIRED (AU_C_JOBS | AU_C_CAS | AU_C_WAVEFRONTS | AU_C_ACTIVE_CYCLES | AU_C_WARPS)

/* Counters of one launch, either of one SM or GPU-wide:
 * GPU-wide: jobs/cas_jobs/wavefronts are sums over all SMs, active_cycles is the average over
 * all SMs (sm__cycles_active.avg), warps the average resident warps per active cycle. */
typedef struct au_counters {
    double jobs;          /* J: shared-atomic warp-instructions (ATOMS.*, CAS retries included) */
    double cas_jobs;      /* of which ATOMS.CAS */
    double wavefronts;    /* shared-atomic wavefronts */
    double active_cycles; /* T */
    double warps;         /* resident warps per active cycle (queue-length estimate) */
    double queue;         /* measured queue length, when AU_C_QUEUE */
    unsigned have;        /* AU_C_* bits of the fields that were collected */
    double wavefronts_max;/* GPU-wide: the most shared-atomic wavefronts of one SM (L1TEX .max) */
    double active_max;    /* GPU-wide: the most active cycles of one SM (sm__cycles_active.max) */
    double shared_wavefronts; /* every shared-memory wavefront (l1tex ..._mem_shared.sum) */
    double ld_inst;       /* LDS warp-instructions */
    double st_inst;       /* STS warp-instructions */
    double generic_jobs;  /* ATOM (generic address) warp-instructions: local, remote or global */
    double dshared_wavefronts; /* wavefronts of requests to other SMs' shared memory (sender side) */
    double dshared_xbar;  /* cycles the sender's L1TEX-to-crossbar DSMEM interface was active */
    double cluster_size;  /* blocks per cluster (1 without clusters) */
    double dshared_sectors;      /* sectors of requests to other SMs' shared memory */
    double dshared_sectors_atom; /* ... of atomic requests */
    unsigned wrong_unit;  /* AU_C_* bits of counters given in a unit of another kind (not in have) */
} au_counters;

/* Wavefronts of the loads of CAS loops (the LDS that precedes every attempt of the loops the
 * compiler emits for atomicAdd on float or 64-bit shared words, and for 64-bit And/Or/Xor), GPU-wide
 * sums, for loop_jobs attempts (ATOMS.CAST.SPIN* jobs).  The non-atomic shared wavefronts W_o =
 * shared - atomic wavefronts belong to LDS and STS instructions; each attempt has one LDS.  When
 * the loads and stores are the loops' alone (ld + st <= loop_jobs, to 0.5 %), *w = W_o exactly and
 * the function returns 1.  Otherwise it returns 2 with the estimate *w = W_o * loop_jobs / (ld + st)
 * (W_o shared by instruction) and the bounds *lo = loop_jobs (a load takes at least one wavefront)
 * and *hi = W_o (the other loads may be the loops' own: a 64-bit min/max loop loads once more
 * where no CAS is needed).  0 when the counters are missing (*w = *lo = *hi = -1) or there are no
 * loop jobs (0).  au_launch_apply_opcodes narrows the estimate with the kernel's code. */
int au_loop_loads(const au_counters *gpu, double loop_jobs, double *w, double *lo, double *hi);

/* The hardware metrics the model reads, by their Nsight Compute / CUPTI names (with rollup).
 * counter = the AU_C_* bit it fills (0 for descriptive metrics); required = needed for U. */
typedef struct au_metric_def {
    const char *name;
    unsigned counter;
    int required;
    const char *meaning;
    unsigned sets; /* AU_SET_* it belongs to */
    const char *unit; /* its base unit ("inst", "cycle", ...): a value given in another is not used */
} au_metric_def;
/* Counter sets, one pass each on GH100 (docs/counters.md): the standard set, and the cluster set
 * for launches with clusters, which trades the local shared-atomic wavefronts and the CAS-loop
 * load counters for the counters that see distributed-shared-memory atomics. */
enum { AU_SET_STD = 1u, AU_SET_CLUSTER = 2u, AU_SET_BOTH = 3u };
/* The metric list, in the order printed by `atomutil-profile --print-ncu-metrics`. */
const au_metric_def *au_metric_defs(size_t *count);
/* Well-known descriptive metrics (not counters of the model). */
#define AU_METRIC_DEVICE_NAME "device__attribute_display_name"
#define AU_METRIC_SM_COUNT "device__attribute_multiprocessor_count"
#define AU_METRIC_DURATION "gpu__time_duration.sum"
#define AU_METRIC_CLUSTER_SIZE "launch__cluster_size"
/* Stores value v of metric `name` into c (sets the have bit); returns 1 if the metric is one of
 * the model's counters, 0 otherwise. */
int au_counters_set(au_counters *c, const char *name, double v);

typedef enum au_verdict {
    AU_VERDICT_UNKNOWN = 0, /* counters missing or not right (AU_F_UNUSABLE), DSMEM not calibrated */
    AU_VERDICT_NOT_LIMITING,
    AU_VERDICT_SIGNIFICANT,
    AU_VERDICT_BOUND,
    AU_VERDICT_UNCERTAIN, /* U has a range (util_lo..util_hi) that spans more than one verdict */
} au_verdict;

/* How busy time is priced (docs/model.md):
 *   AU_BUSY_SATURATED (default): each job costs the table's service time at the largest queue
 *     length, S(n_max, a, c): the unit's capacity used, the figure validated against ground truth
 *     (docs/validation.md).
 *   AU_BUSY_QUEUE: each job costs S(N, a, c) at the estimated queue length N, as in the source
 *     paper; a few latency-bound warps then count as a busy unit. */
typedef enum au_busy_mode { AU_BUSY_SATURATED = 0, AU_BUSY_QUEUE = 1 } au_busy_mode;
const char *au_busy_mode_name(au_busy_mode m); /* "saturated", "queue" */

typedef struct au_thresholds {
    double bound;       /* U >= bound: atomic-bound (default 0.80) */
    double significant; /* U >= significant: significant (default 0.40) */
} au_thresholds;
#define AU_THRESHOLDS_DEFAULT ((au_thresholds){0.80, 0.40})

/* The model's quantities for one SM, or per SM on average for GPU-wide input. */
typedef struct au_result {
    double jobs;       /* J per SM (GPU-wide: J / sm_count) */
    double a;          /* serialized passes per job: wavefronts / (J + J_cas) */
    double queue_len;  /* N */
    double cas_queued; /* c = N * J_cas / J */
    double service;    /* S(N, a, c), cycles per job */
    double busy;       /* B = J * S, cycles */
    double active;     /* T, cycles */
    double util;       /* U = B / T (fraction; 0 without atomics) */
    unsigned flags;    /* AU_F_* */
    unsigned missing;  /* AU_C_* bits that were needed but absent */
    au_verdict verdict;
    /* GPU-wide input with the .max rollups (0 when absent): the busiest SM's wavefronts over the
     * mean SM's, and a lower bound of the most utilized SM's U: the larger of U (a weighted mean
     * over SMs) and the busiest SM's busy cycles (B * imbalance, same a and S) over the
     * longest-active SM's active cycles */
    double imbalance;
    double util_busiest;
    /* with AU_F_LOOP_LOADS_ESTIMATED: U with the CAS loops' load wavefronts at their lower and upper
     * bounds (util is the point estimate between them); 0 otherwise */
    double util_lo, util_hi;
    /* with AU_F_DSMEM: U of the local unit (this SM's shared atomics, local generic ones included)
     * and of the DSMEM path (requests to other SMs); util is the larger */
    double util_local, util_remote;
    /* with a flag of AU_F_UNUSABLE: why, one line: the missing metrics' names, or the check that
     * failed ("600 CAS jobs, more than all 500 jobs") */
    char why[256];
} au_result;

/* The busiest-SM figures of res (imbalance, util_busiest; flag AU_F_IMBALANCED) from GPU-wide
 * counters with the .max rollups; leaves them 0 without them.  au_model_eval calls it. */
void au_result_busiest(au_result *res, const au_counters *gpu, int sm_count);

/* GPU-wide evaluation from rollups.  family prices the non-CAS jobs ("add" unless the user knows
 * better).  sm_count > 0.  Returns AU_OK even when counters are missing or cannot be right (then
 * res->flags has one of AU_F_UNUSABLE, res->why says why, verdict UNKNOWN and every figure 0);
 * < 0 only for invalid arguments or an unknown family.  Required: jobs, and with jobs CAS jobs,
 * active cycles, the shared-atomic wavefronts (the standard set) or the three DSMEM counters (the
 * cluster set), warps in AU_BUSY_QUEUE. */
int au_model_eval(const au_table *t, const char *family, const au_counters *gpu, int sm_count,
                  const au_thresholds *thr, au_busy_mode busy, au_result *res);
/* Per-SM evaluation: per_sm[i] holds SM i's own counters (active_cycles of that SM).  Fills out[i]
 * and an aggregate *total (sum of busy over sum of active, i.e. active-time weighted mean U;
 * total->jobs is the mean jobs per SM). */
int au_model_eval_per_sm(const au_table *t, const char *family, const au_counters *per_sm,
                         size_t nsm, const au_thresholds *thr, au_busy_mode busy, au_result *out,
                         au_result *total);

const char *au_verdict_name(au_verdict v); /* "atomic-bound", "significant", "not-limiting", "unknown", "uncertain" */
/* The verdict of utilization u (a fraction) under thr (NULL: AU_THRESHOLDS_DEFAULT). */
au_verdict au_verdict_of(double u, const au_thresholds *thr);
/* The family registry (families.def): one entry per family the calibrator measures. */
typedef enum au_family_kind {
    AU_KIND_PLAIN = 0, /* its own operation is not a CAS */
    AU_KIND_CAS,       /* its own operation is a CAS (ATOMS.CAS, .CAS.64): priced at c = 0 */
    AU_KIND_CAS_LOOP,  /* attempts of a compiler-made CAS loop (ATOMS.CAST.SPIN*), CAS-class too */
    AU_KIND_DSMEM,     /* distributed shared memory (cluster): only c = 0 rows */
} au_family_kind;
typedef struct au_family_def {
    const char *name;   /* table family */
    const char *opcode; /* its SASS opcode ("ATOMS.CAST.SPIN.64"; the dsmem families': ATOM.E.ADD) */
    au_family_kind kind;
    int wf_per_pass;    /* wavefronts the counter reports per serialized pass (CAS class: 2) */
    int cluster;        /* dsmem families: blocks per cluster (0 for the others) */
    int shift;          /* dsmem families: target rank = (own rank + shift) % cluster */
    int row;            /* dsmem families: 1 = every warp's words in one 128-byte row */
} au_family_def;
/* The registry's entries, in families.def's order; *count receives their number. */
const au_family_def *au_families(size_t *count);
/* The registry's entry of a family name, NULL for a name it does not hold. */
const au_family_def *au_family_find(const char *name);
/* A family's kind: the registry's, or for a name it does not hold (a table of a newer calibrator)
 * the table format's naming convention (docs/table-format.md): names that start with "cast_spin"
 * are CAS loops, other names that start with "cas" CAS-class, "dsmem" the cluster families. */
au_family_kind au_family_kind_of(const char *family);
/* 1 for families whose own operation is CAS-class (AU_KIND_CAS, AU_KIND_CAS_LOOP).  They are
 * priced at c = 0. */
int au_family_is_cas_class(const char *family);
/* 1 for the CAS-loop families (AU_KIND_CAS_LOOP), whose jobs are attempts of a compiler-made
 * loop, each preceded by a shared load. */
int au_family_is_cas_loop(const char *family);
/* 1 for the distributed-shared-memory (cluster) families (names that start with "dsmem"): they
 * hold only c = 0 rows (docs/table-format.md). */
int au_family_is_dsmem(const char *family);
/* One attempt of a CAS loop: the table's S at the family's largest a (an uncontended attempt of a
 * full warp: AU_LOOP_WF_PER_A wavefronts per a, the CAS's two and its load's one) scaled to
 * wf_attempt, the attempt's shared wavefronts, its load's included.  The unit serves every
 * shared wavefront in about a cycle at saturation, whether the attempt's lanes conflict, fail or
 * share a word (calibrate/tools/unit_bound.cu; docs/calibration.md). */
#define AU_LOOP_WF_PER_A 3.0
int au_loop_service(const au_table *t, const char *family, double n, double wf_attempt,
                    double *service_cycles, unsigned *flags);

/* Distributed shared memory (docs/model.md, "DSMEM"): xbar cycles of one remote request of 32
 * lanes on 32 distinct words (measured: docs/results/dsmem-patterns-h100-2026-11-24). */
#define AU_DSMEM_XBAR_PER_REQUEST 9.0
/* With the DSMEM sector counters: a launch whose atomic sectors are at least this share of all its
 * DSMEM sectors sent atomics only; at most 1 - this share, none (docs/model.md, "DSMEM"). */
#define AU_DSMEM_ALL_ATOMIC 0.995
/* Table family of a launch's remote requests by its cluster size: of the registry's remote ring
 * families (shift > 0, row 0: dsmem_remote, _c4, _c8, _c16), the one the table holds whose
 * cluster size is nearest (in log2; the first on a tie); NULL when the table has none. */
const char *au_dsmem_remote_family(const au_table *t, double cluster_size);
/* Prices the DSMEM atomics of a launch measured with the cluster set (gpu has AU_C_DSMEM; GPU-wide
 * sums): remote busy = max(k_x * xbar cycles, k_w * dshared wavefronts) per SM, with k_x = S(remote,
 * n, 1) / AU_DSMEM_XBAR_PER_REQUEST and k_w = S(remote, n, 32) / 32; the local unit's busy = res's
 * (the counted ATOMS) plus the generic jobs that sent nothing, at the dsmem_local family; U =
 * max(local, remote) / T, with a range for the local passes the cluster set does not count.
 * With the sector counters (AU_C_DSHARED_SECTORS) only the atomics' share of the DSMEM traffic is
 * priced (flags AU_F_DSMEM_OTHER_TRAFFIC, AU_F_DSMEM_MIXED).
 * res must hold au_model_eval's (or the opcode pricing's) result; a launch without DSMEM
 * counters is left as it is. */
int au_dsmem_apply(const au_table *t, const au_counters *gpu, int sm_count, const au_thresholds *thr,
                   au_busy_mode busy, au_result *res);

/* ---------------------------------------------------------------- per-SM, per-class model */

/* Table family of a SASS opcode, from the registry (families.def): the family whose opcode is
 * the longest prefix of it ending at a '.' or its end: "ATOMS.ADD" -> "add", "ATOMS.POPC.INC.32"
 * -> "popc_inc", "ATOMS.CAS" -> "cas", "ATOMS.CAS.64" -> "cas64", "ATOMS.CAST.SPIN" ->
 * "cast_spin", "ATOMS.CAST.SPIN.64" -> "cast_spin64", MIN/MAX (any type suffix) -> "min"/"max",
 * EXCH -> "exch", AND/OR/XOR -> "bit_and"/"bit_or"/"bit_xor", INC/DEC -> "inc"/"dec".  NULL for
 * others (the dsmem families' generic ATOM included). */
const char *au_opcode_family(const char *opcode);

/* Jobs of one instruction class (one family) on one SM. */
typedef struct au_class_jobs {
    const char *family; /* table family; one missing from the table is priced as "add" */
    double jobs;        /* executed warp-instructions */
    double wavefronts;  /* their shared wavefronts */
    /* CAS loops (au_family_is_cas_loop): the wavefronts of the loads before their attempts, or
     * < 0 when unknown (then priced by the table at a from the atomic wavefronts alone) */
    double load_wavefronts;
} au_class_jobs;

/* One SM (or the mean SM) with jobs of several classes:
 *   J_mix = non-CAS jobs + 32-bit CAS jobs (family "cas"), c = N * J_cas32 / J_mix;
 *   with non-CAS classes: B = J_mix * sum_k (J_k / J_noncas) * S_k(N, a_k, c) over the non-CAS
 *   classes (the table's c column holds the 32-bit CAS jobs' share of the queue), plus
 *   J_k * S_k(N, a_k, 0) for each other CAS-class family (cas64, cast_spin, cast_spin64: no c
 *   column was measured with them, and the c column is close to linear in c);
 *   with CAS classes only: B = sum_k J_k * S_k(N, a_k, 0);
 *   a_k = wavefronts_k / J_k, halved for CAS-class families (two wavefronts per pass);
 *   CAS-loop classes with known load wavefronts cost au_loop_service per job instead, at
 *   (wavefronts_k + load_wavefronts_k) / J_k wavefronts per attempt.
 * busy_share[k] (may be NULL) receives class k's share of B, apportioned by J_k * S_k(N, a_k, 0).
 * queue_len and active_cycles are this SM's (or estimates, flagged by the caller). */
int au_model_eval_classes(const au_table *t, const au_class_jobs *cls, size_t ncls, double queue_len,
                          double active_cycles, const au_thresholds *thr, au_busy_mode busy,
                          au_result *res, double *busy_share);

/* ---------------------------------------------------------------- report */

/* One shared-atomic SASS instruction of a launch, over all SMs (per-SM mode). */
typedef struct au_instr {
    char function[256]; /* mangled */
    unsigned pc;
    char opcode[32];
    char family[AU_FAMILY_MAX];
    char source[160];   /* "file.cu:64" when line info exists, else "" */
    double jobs, wavefronts, threads;
    double busy;        /* its share of the busy cycles, summed over SMs */
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
    au_instr *instr;         /* the kernel's ATOMS instructions in code order: function, pc, opcode,
                                family, source (no counts: jobs, wavefronts, busy are 0) */
    size_t nclass;
    au_class_share cls[AU_MAX_CLASSES]; /* by jobs, largest first */
    au_result by_family;     /* this launch priced with the single --family, for comparison */
    char classes[128];       /* "cast_spin 98%, popc_inc 2%" (shares of jobs) */
    unsigned flags;          /* AU_F_UNKNOWN_OPCODE, AU_F_SPLIT_ESTIMATED, AU_F_OPCODE_MISMATCH */
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

/* One kernel launch of a report. */
typedef struct au_launch {
    long long id;          /* launch id in its source (ncu "ID") */
    long long pid;         /* process id, -1 when unknown */
    char *kernel;          /* full (demangled) kernel name */
    char grid[48];         /* "(528, 1, 1)" */
    char block[48];
    char device[AU_NAME_MAX]; /* device name, "" when unknown */
    int cc_major, cc_minor;   /* 0.0 when unknown */
    int sm_count;             /* 0 when unknown */
    double duration_ns;       /* gpu time, < 0 when unknown */
    au_counters ctr;
    char missing_names[256];  /* names of the missing metrics, comma separated */
    au_result res;
    au_opsplit *ops;          /* opcode classes, NULL unless --opcodes data exists */
    au_load_sites sites;      /* load sites of the kernel's code (known = 0 without its listing),
                                 set before au_launch_apply_opcodes */
} au_launch;

/* Prices launch l by the opcodes of its kernel's code (atomutil-profile --opcodes).  instr[0..n)
 * are the kernel's instructions (opcode, function, pc, source; others than ATOMS are ignored); each
 * gets its table family from the opcode (unknown opcodes and families the table lacks: add, flag
 * AU_F_UNKNOWN_OPCODE).  The counters split the jobs: the CAS counter's jobs go to the CAS-class
 * families (ATOMS.CAS*, .CAST.SPIN*), the rest to the others; two or more families of one kind
 * share their kind's jobs by instruction count (AU_F_SPLIT_ESTIMATED); a counter share the code
 * cannot hold (CAS jobs without a CAS-class opcode, or the reverse) goes to the kind the code has
 * (AU_F_OPCODE_MISMATCH).  Every class has the launch's a, N and T.  l->res becomes the class
 * result (au_model_eval_classes), the previous one is kept in l->ops->by_family.  A launch
 * without usable counters gets the instruction list only. */
int au_launch_apply_opcodes(au_launch *l, const au_table *t, const au_instr *instr, size_t n,
                            const au_thresholds *thr, au_busy_mode busy);

typedef struct au_report {
    au_launch *launches;
    size_t count, cap;
    char source[512];      /* where the counters came from (file name) */
    const au_table *table; /* not owned */
    char family[AU_FAMILY_MAX];
    au_thresholds thr;
    au_busy_mode busy; /* AU_BUSY_SATURATED after au_report_init */
} au_report;

void au_report_init(au_report *r);
void au_report_free(au_report *r);
/* Appends a zeroed launch; returns it or NULL on out-of-memory. */
au_launch *au_report_add(au_report *r);
/* Evaluates every launch with the table (SM count from the launch, else the table's metadata). */
int au_report_eval(au_report *r, const au_table *t, const char *family, const au_thresholds *thr);

typedef enum au_format { AU_FMT_TABLE = 0, AU_FMT_CSV, AU_FMT_JSON } au_format;
int au_report_render(const au_report *r, au_format fmt, FILE *out);
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
