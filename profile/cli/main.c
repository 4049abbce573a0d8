/*
 * atomutil-profile - reports, per kernel launch, the utilization U of the SM's shared-memory atomic
 * unit from hardware counters and a measured service-time table.
 * This file owns the command line: options, exit statuses (docs/cli.md), table choice, output.
 * Counters come from a live run of a program under the CUPTI injection library (`-- ./app`,
 * live.c), or from an Nsight Compute CSV export (--import); --compare puts two side by side.
 */
#include "atomutil/model.h"
#include "atomutil/util.h"
#include "live.h"
#include "ncu_import.h"
#include "opcodes.h"
#include "outname.h"
#include "tables.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Exit statuses: documented in docs/cli.md and usage(). */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,     /* I/O error, out of memory */
    EXIT_USAGE = 2,    /* bad command line */
    EXIT_BADINPUT = 3, /* malformed table or export */
    EXIT_NOTABLE = 4,  /* no table fits, or the table lacks the family */
    EXIT_NOLAUNCH = 5, /* the export has no launch that can be evaluated */
};

static const char *prog = "atomutil-profile";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [options] -- PROGRAM [ARGS...]\n"
            "       %s [options] --import EXPORT.csv [MORE.csv...]\n"
            "       %s [options] --compare A.csv B.csv\n"
            "       %s --print-ncu-metrics\n"
            "\n"
            "Reports, per kernel launch, the utilization U = busy / active cycles of the SM's\n"
            "shared-memory atomic unit, from hardware counters and a service-time table S(n,a,c).\n"
            "\n"
            "Input (one of):\n"
            "  -- PROGRAM [ARGS]      run PROGRAM unchanged under CUPTI and measure every kernel launch;\n"
            "                         its counters go to BASE.counters.csv first (see -o)\n"
            "  -i, --import FILE...   Nsight Compute CSV export (or a counters file of an earlier run), made with\n"
            "                         ncu --csv --clock-control none --cache-control none \\\n"
            "                           --metrics $(%s --print-ncu-metrics) ./app > FILE\n"
            "                         several files (after one --import, or -i each) make one report: each\n"
            "                         launch keeps its file; --summary shows each file and all together\n"
            "      --compare A B      compare two counters files or exports kernel by kernel (options may\n"
            "                         also follow A and B)\n"
            "      --print-ncu-metrics  print the comma-separated metric list for ncu --metrics and exit\n"
            "Model:\n"
            "  -t, --table FILE       service-time table (default: the installed table for the GPU named in\n"
            "                         the export, matched by name and compute capability; docs/table-format.md)\n"
            "      --family NAME      table family that prices the non-CAS jobs where the code is unknown\n"
            "                         (default: add); given alone, it prices every launch (no --opcodes; for\n"
            "                         kernels of float or 64-bit atomicAdd on shared memory: cast_spin,\n"
            "                         cast_spin64)\n"
            "      --opcodes          (default) price every job by the table family of its own opcode\n"
            "                         (ATOMS.ADD, .POPC.INC, .CAS, .CAST.SPIN, .MIN, ...), read from the\n"
            "                         kernel's code: a live run keeps the measured kernels' cubins in\n"
            "                         BASE.cubins/ and lists them with nvdisasm or cuobjdump (docs/opcodes.md);\n"
            "                         with --import, the BASE.cubins/ of such a run.  Given explicitly, missing\n"
            "                         code is an error; by default those launches are priced as --family\n"
            "      --no-opcodes       price every job as --family (also implied by an explicit --family)\n"
            "      --no-cache         list the kernels without the listing cache (default: listings are kept\n"
            "                         in $ATOMUTIL_CACHE_DIR, else $XDG_CACHE_HOME/atomutil/listings, else\n"
            "                         $HOME/.cache/atomutil/listings, keyed by cubin and nvdisasm;\n"
            "                         ATOMUTIL_CACHE_DIR=off turns it off too)\n"
            "      --busy MODE        saturated: jobs cost the table's saturated service time (default,\n"
            "                         validated, docs/validation.md); queue: S at the estimated queue length\n"
            "      --bound PCT        U at or above which a launch is atomic-bound (default: 80)\n"
            "      --significant PCT  U at or above which the unit is a significant cost (default: 40, or\n"
            "                         --bound where that is lower)\n"
            "Selection (a live run measures only the selected launches; the others run unmeasured):\n"
            "  -k, --kernel REGEX     only launches whose kernel name matches (POSIX extended; default: all)\n"
            "      --launch-skip N    skip the first N launches that match (default: 0)\n"
            "      --launch-count N   at most N launches (default: all)\n"
            "      --launches-per-kernel N  at most the first N launches of each kernel (default: all)\n"
            "      --profile-from-start on|off  off: only launches between cudaProfilerStart and\n"
            "                         cudaProfilerStop (torch.cuda.profiler.start/stop); live runs (default: on)\n"
            "Output (stdout unless -o):\n"
            "      --csv              one CSV row per launch (not with --json)\n"
            "      --json             JSON document\n"
            "      --summary          one row per kernel, by GPU time: launches, time, share of the GPU time,\n"
            "                         U and its range over the launches, worst and most common verdict, the\n"
            "                         families the jobs were priced as (CSV: one row per kernel, JSON: a\n"
            "                         \"kernels\" array); the table's default above 50 launches\n"
            "      --per-launch       one table row per launch, however many (CSV and JSON are per launch\n"
            "                         unless --summary); not with --summary\n"
            "      --name-width N     kernel column of the tables: N columns (default 32; 0: the widest name);\n"
            "                         names as ncu --kernel-name-base function prints them, numbered [n]\n"
            "                         where cut or shared, in full after the table\n"
            "  -o, --output BASE      write the report to BASE.txt, BASE.csv or BASE.json; a live run keeps its\n"
            "                         counters in BASE.counters.csv and the kernels' code in BASE.cubins/\n"
            "                         (default BASE: atomutil-PID, whose files are removed after a complete\n"
            "                         report); -o run.csv --csv writes run.csv (BASE run); in BASE, %%p is the\n"
            "                         profiled process's id (a live run: the program's), %%q{ENV} the variable\n"
            "                         ENV (unset: an error), %%%% a %%: -o 'rank%%q{RANK}' under torchrun\n"
            "  -q, --quiet            no warnings on stderr\n"
            "      --timing           after the report, print on stderr the seconds of each phase: the\n"
            "                         program's run, the injection's setup, launch callbacks and module loads,\n"
            "                         the report and the opcode listings (default: off; docs/cli.md)\n"
            "  -h, --help             this text\n"
            "  -V, --version          version\n"
            "\n"
            "Exit status: 0 ok, 1 I/O or memory failure, 2 usage error, 3 malformed table or export,\n"
            "4 no table for this GPU (or family missing), 5 no launch in the export could be evaluated.\n"
            "A live run exits with the program's status (128+N if signal N ended it); 125 if atomutil\n"
            "could not set up profiling (no GPU, no permission, no injection library), 126/127 if PROGRAM\n"
            "is not executable / not found; 1-5 as above if the program succeeded but no report was made.\n"
            "\n"
            "Examples:\n"
            "  %s -- ./build/bin/histogram\n"
            "  %s -o run1 --csv -- python3 train.py\n"
            "  %s --no-opcodes --family cast_spin -- ./build/bin/kmeans\n"
            "  %s --import examples/data/histogram-h200.ncu.csv\n"
            "  %s --import run.csv --table tables/nvidia-h200.csv --json -o report\n"
            "  %s --import run.csv -k 'hist_asread' --csv\n"
            "  %s --import run.csv --summary --csv\n"
            "  %s --import rank0.counters.csv rank1.counters.csv --summary\n"
            "  %s --timing -q -- python3 train.py > /dev/null\n"
            "  %s --compare before.counters.csv after.counters.csv\n",
            prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog);
}

static int parse_count(const char *opt, const char *s, long *out)
{
    if (au_parse_long(s, out) != AU_OK || *out < 0) {
        fprintf(stderr, "%s: %s needs a whole number >= 0, got '%s'\n", prog, opt, s);
        return -1;
    }
    return 0;
}

static int parse_pct(const char *opt, const char *s, double *out)
{
    double v;
    if (au_parse_double(s, &v) != AU_OK || v < 0 || v > 1000) {
        fprintf(stderr, "%s: %s needs a percentage 0..1000, got '%s'\n", prog, opt, s);
        return -1;
    }
    *out = v / 100;
    return 0;
}

static void print_ncu_metrics(void)
{
    size_t n;
    const au_metric_def *d = au_metric_defs(&n);
    for (size_t i = 0; i < n; ++i)
        printf("%s%s", i ? "," : "", d[i].name);
    printf("\n");
}

/* Launches kept in [from, keep) with the kernel name `name` (--launches-per-kernel). */
static long earlier_of_kernel(const au_report *r, size_t from, size_t keep, const char *name)
{
    long n = 0;
    for (size_t j = from; j < keep; ++j)
        n += strcmp(r->launches[j].kernel, name) == 0;
    return n;
}

/* Keeps the launches from index `from` on (one file's) that pass -k / --launch-skip /
 * --launch-count / --launches-per-kernel (in order), as a live run selects them
 * (profile/inject/select.c). */
static int select_launches(au_report *r, size_t from, const char *regex, long skip, long count, long per_kernel)
{
    regex_t re;
    if (regex) {
        int e = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB);
        if (e) {
            char msg[256];
            regerror(e, &re, msg, sizeof msg);
            fprintf(stderr, "%s: --kernel: invalid regular expression '%s': %s\n", prog, regex, msg);
            return -1;
        }
    }
    size_t keep = from;
    long seen = 0;
    for (size_t i = from; i < r->count; ++i) {
        au_launch *l = &r->launches[i];
        int ok = !regex || regexec(&re, l->kernel, 0, NULL, 0) == 0;
        if (ok) {
            ok = seen >= skip && (count < 0 || (long)(keep - from) < count) &&
                 (per_kernel < 0 || earlier_of_kernel(r, from, keep, l->kernel) < per_kernel);
            ++seen;
        }
        if (ok)
            r->launches[keep++] = *l;
        else
            free(l->kernel);
    }
    r->count = keep;
    if (regex)
        regfree(&re);
    return 0;
}

static int exit_for(int status)
{
    switch (status) {
    case AU_E_PARSE: return EXIT_BADINPUT;
    case AU_E_NOTFOUND: return EXIT_NOTABLE;
    default: return EXIT_FAIL;
    }
}

/* getopt_long's ids of the options without a short form */
enum {
    O_FAMILY = 256,
    O_BOUND,
    O_SIGNIF,
    O_SKIP,
    O_COUNT,
    O_PER_KERNEL,
    O_FROM_START,
    O_CSV,
    O_JSON,
    O_METRICS,
    O_COMPARE,
    O_BUSY,
    O_OPCODES,
    O_NO_OPCODES,
    O_NO_CACHE,
    O_TIMING,
    O_SUMMARY,
    O_PER_LAUNCH,
    O_NAME_WIDTH
};

/* The command line, parsed (parse_options).  args: the files of -i/--import (nimport options) and
 * the operands, in the order given (with --compare its two files); program: PROGRAM and its
 * arguments where live. */
typedef struct {
    const char *table_path, *family, *regex;
    char *out_base; /* -o, shortened by output_base() */
    long skip, count, per_kernel;
    const char *from_start; /* --profile-from-start: "on", "off" or NULL */
    int quiet, metrics, compare, family_given, no_cache, timing_on, live;
    int opcodes; /* -1: by default (skipped where the code is missing), 0: off, 1: required */
    au_format fmt;
    au_view view;        /* --summary, --per-launch */
    unsigned name_width; /* --name-width */
    au_thresholds thr;
    au_busy_mode busy;
    const char **args; /* argc of them at most; freed by main */
    int nargs, nimport;
    char **program;
} cli_options;

/* Reads the counters files or exports paths[0..n) into rep, each launch knowing its file, and
 * selects launches in each (-k, --launch-skip, --launch-count count per file: per run, or rank).
 * EXIT_OK or an exit status after one line on stderr. */
static int load_files(const char *const *paths, size_t n, const cli_options *o, au_report *rep)
{
    /* a live run measured only the selected launches: its counters file holds just them */
    long skip = o->live ? 0 : o->skip, count = o->live ? -1 : o->count, per_kernel = o->live ? -1 : o->per_kernel;
    int st;
    for (size_t f = 0; f < n; ++f) {
        size_t first = rep->count;
        if ((st = au_ncu_import(paths[f], rep)) != AU_OK) {
            fprintf(stderr, "%s: %s\n", prog, au_last_error());
            return st == AU_E_IO ? EXIT_FAIL : exit_for(st);
        }
        for (size_t i = first; i < rep->count; ++i)
            rep->launches[i].file = (unsigned)f;
        if (select_launches(rep, first, o->regex, skip, count, per_kernel))
            return EXIT_USAGE;
    }
    if (n > 1) { /* the files in the report, and its source: their names */
        if (au_report_set_files(rep, paths, n) != AU_OK) {
            fprintf(stderr, "%s: out of memory\n", prog);
            return EXIT_FAIL;
        }
        size_t used = 0;
        for (size_t f = 0; f < n && used < sizeof rep->source; ++f)
            used += (size_t)snprintf(rep->source + used, sizeof rep->source - used, "%s%s", f ? ", " : "", paths[f]);
    }
    if (rep->count == 0) {
        const char *check = o->regex || skip || count >= 0 || per_kernel >= 0
                                ? " (check -k / --launch-skip / --launch-count / --launches-per-kernel)"
                                : "";
        if (n == 1)
            fprintf(stderr, "%s: %s: no kernel launch selected%s\n", prog, paths[0], check);
        else
            fprintf(stderr, "%s: no kernel launch selected in the %zu files%s\n", prog, n, check);
        return EXIT_NOLAUNCH;
    }
    return EXIT_OK;
}

/* The table a live run's report will most likely use, loaded while the program runs (the GPU
 * checks give device 0; the report's first launch names the GPU that picks the table, and the
 * prefetched one is used only if that pick is the same file). */
static struct {
    char *path;
    au_table *table;
} prefetch;

static void prefetch_table(void *ud, const live_result *res)
{
    const cli_options *o = ud;
    char *path = NULL;
    if (o->table_path)
        path = strdup(o->table_path);
    else if (au_pick_table(res->gpu_name, res->cc_major, res->cc_minor, &path, NULL) != AU_OK)
        path = NULL;
    au_table *t = NULL;
    if (path && au_table_load(path, &t) == AU_OK) {
        prefetch.path = path;
        prefetch.table = t;
        return;
    }
    free(path); /* the report loads it again and says what is wrong */
}

static void prefetch_free(void)
{
    au_table_free(prefetch.table);
    free(prefetch.path);
    prefetch.table = NULL;
    prefetch.path = NULL;
}

/* Loads the counters files or exports paths[0..n), selects launches, picks the table (unless
 * given) and evaluates.  Returns EXIT_OK or an exit status after printing one line on stderr. */
static int load_and_eval(const char *const *paths, size_t n, const cli_options *o, au_report *rep, au_table **table)
{
    const char *table_path = o->table_path, *family = o->family;
    int st;
    char *picked = NULL;
    int rc = load_files(paths, n, o, rep);
    if (rc != EXIT_OK)
        return rc;
    unsigned tflags = 0;
    if (!table_path) {
        /* the first launch that names its GPU picks the table */
        const au_launch *ref = &rep->launches[0];
        for (size_t i = 0; i < rep->count; ++i)
            if (rep->launches[i].device[0] && rep->launches[i].cc_major) {
                ref = &rep->launches[i];
                break;
            }
        if (!ref->cc_major) {
            fprintf(stderr, "%s: %s has no CC column to pick a table by; pass --table FILE\n", prog, paths[ref->file]);
            return EXIT_NOTABLE;
        }
        if (au_pick_table(ref->device, ref->cc_major, ref->cc_minor, &picked, &tflags) != AU_OK) {
            fprintf(stderr, "%s: %s\n", prog, au_last_error());
            return EXIT_NOTABLE;
        }
        table_path = picked;
    }
    if (prefetch.table && strcmp(prefetch.path, table_path) == 0) {
        *table = prefetch.table; /* ours now */
        prefetch.table = NULL;
        st = AU_OK;
    } else {
        st = au_table_load(table_path, table);
    }
    if (st != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        rc = st == AU_E_IO ? EXIT_NOTABLE : exit_for(st);
        goto done;
    }
    const au_table_meta *m = au_table_get_meta(*table);
    if (!au_table_has_family(*table, family)) {
        fprintf(stderr, "%s: table %s has no family '%s'\n", prog, table_path, family);
        rc = EXIT_NOTABLE;
        goto done;
    }
    rep->busy = o->busy;
    if ((st = au_report_eval(rep, *table, family, &o->thr)) != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        rc = exit_for(st);
        goto done;
    }
    size_t usable = 0;
    for (size_t i = 0; i < rep->count; ++i)
        usable += !(rep->launches[i].res.flags & AU_F_UNUSABLE);
    if (usable == 0) { /* one line: no warnings before this error */
        char where[64];
        if (n > 1)
            snprintf(where, sizeof where, "%zu files", n);
        else
            au_strlcpy(where, paths[0], sizeof where);
        const au_launch *l = &rep->launches[0];
        if ((l->res.flags & AU_F_MISSING) && l->missing_names[0])
            fprintf(stderr, "%s: %s: no launch has all required metrics (%s)\n", prog, where, l->missing_names);
        else
            fprintf(stderr, "%s: %s: no launch could be evaluated (launch %lld%s%s: %s)\n", prog, where, l->id,
                    n > 1 ? " of " : "", n > 1 ? paths[l->file] : "", l->res.why);
        rc = EXIT_NOLAUNCH;
        goto done;
    }
    if (!o->quiet) {
        /* the table's own words, cleaned for the terminal */
        char note[sizeof m->note * 3], gpu[sizeof m->gpu_name * 3];
        au_text_fit(m->note, note, sizeof note, 0, 0);
        au_text_fit(m->gpu_name, gpu, sizeof gpu, 0, 0);
        if (strcmp(m->status, "provisional") == 0)
            fprintf(stderr, "%s: warning: table %s is provisional (%s)\n", prog, table_path, note);
        for (size_t i = 0; i < rep->count; ++i)
            if (rep->launches[i].res.flags & AU_F_TABLE_OTHER_ARCH) {
                fprintf(stderr,
                        "%s: warning: table %s was measured on compute capability %d.%d, launch %lld ran on "
                        "%d.%d: another architecture's service times (flag table_other_arch)\n",
                        prog, table_path, m->cc_major, m->cc_minor, rep->launches[i].id, rep->launches[i].cc_major,
                        rep->launches[i].cc_minor);
                break;
            }
        if (tflags & AU_F_TABLE_OTHER_GPU)
            fprintf(stderr,
                    "%s: warning: no table for this GPU's name; using %s (%s, same compute "
                    "capability)\n",
                    prog, table_path, gpu);
    }
done:
    free(picked);
    return rc;
}

/* One warning line per launch whose counters are missing or cannot be right (verdict unknown,
 * docs/counters.md), the first WARN_UNUSABLE_MAX of them, then one line for the rest. */
#define WARN_UNUSABLE_MAX 10
static void warn_unusable(const au_report *rep)
{
    size_t shown = 0;
    for (size_t i = 0; i < rep->count; ++i) {
        const au_launch *l = &rep->launches[i];
        if (!(l->res.flags & AU_F_UNUSABLE))
            continue;
        if (shown++ == WARN_UNUSABLE_MAX) {
            size_t rest = 1;
            while (++i < rep->count)
                rest += (rep->launches[i].res.flags & AU_F_UNUSABLE) != 0;
            fprintf(stderr, "%s: warning: %zu more launch%s with verdict unknown (see the report's flags)\n", prog,
                    rest, rest == 1 ? "" : "es");
            return;
        }
        char kshort[64], kn[200], fl[256];
        au_kernel_short(l->kernel, kshort, sizeof kshort, 40);
        au_text_fit(kshort, kn, sizeof kn, 0, 0); /* one printable line, whatever the name holds */
        fprintf(stderr, "%s: warning: launch %lld%s%s (%s): verdict unknown, %s: %s\n", prog, l->id,
                rep->nfiles > 1 ? " of " : "", rep->nfiles > 1 ? rep->files[l->file] : "", kn,
                au_flags_string(l->res.flags & AU_F_UNUSABLE, fl, sizeof fl), l->res.why);
    }
}

/* The report's file extension, by au_format. */
static const char *const report_ext[] = {"txt", "csv", "json"};

/* -o NAME (docs/cli.md): a NAME that ends in the report's extension names the report itself
 * (-o run.csv --csv writes run.csv, not run.csv.csv) and BASE, the stem of the report and of a
 * live run's counters file and cubins, is NAME without it; a NAME that ends in another report's
 * extension is a usage error (-o run.csv without --csv would write run.csv.txt).  name is
 * shortened in place; 0, or -1 after the error line. */
static int output_base(char *name, au_format fmt)
{
    static const char *const what[] = {"the table", "CSV", "JSON"};
    static const char *const how[] = {"no --csv or --json", "--csv", "--json"};
    size_t nl = strlen(name);
    for (int f = AU_FMT_TABLE; f <= AU_FMT_JSON; ++f) {
        size_t el = strlen(report_ext[f]);
        /* a stem must remain: "-o .csv" and "-o dir/.csv" are bases */
        if (nl < el + 2 || name[nl - el - 1] != '.' || strcmp(name + nl - el, report_ext[f]) != 0 ||
            name[nl - el - 2] == '/')
            continue;
        if (f != (int)fmt) {
            fprintf(stderr, "%s: -o %s ends in .%s but the report is %s (.%s): give -o %.*s.%s, or %s for %s\n", prog,
                    name, report_ext[f], what[fmt], report_ext[fmt], (int)(nl - el - 1), name, report_ext[fmt], how[f],
                    what[f]);
            return -1;
        }
        name[nl - el - 1] = '\0';
        return 0;
    }
    return 0;
}

/* Opens BASE.<ext of fmt> (or stdout without a base). */
static FILE *open_output(const char *base, au_format fmt, int quiet)
{
    const char *const *ext = report_ext;
    if (!base)
        return stdout;
    size_t pl = strlen(base) + 6;
    char *path = malloc(pl);
    if (!path) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return NULL;
    }
    snprintf(path, pl, "%s.%s", base, ext[fmt]);
    FILE *out = fopen(path, "w");
    if (!out)
        fprintf(stderr, "%s: %s: cannot create: %s\n", prog, path, strerror(errno));
    else if (!quiet)
        fprintf(stderr, "%s: report written to %s\n", prog, path);
    free(path);
    return out;
}

static int close_output(FILE *out, int rc)
{
    if (out && fflush(out) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "%s: writing the report failed: %s\n", prog, strerror(errno));
        rc = EXIT_FAIL;
    }
    if (out && out != stdout && fclose(out) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "%s: closing the report failed: %s\n", prog, strerror(errno));
        rc = EXIT_FAIL;
    }
    return rc;
}

/* --timing (docs/cli.md, "Timing"): the seconds of each phase, summed where a phase ran several
 * times; "n/a" for a phase that did not run or whose figures the counters file lacks. */
typedef struct {
    double start;    /* main() began */
    int live;        /* the target ran (run_s) */
    double run_s;    /* its wall time, fork to exit */
    int have_inject; /* the injection library's figures were read (inject) */
    live_timing inject;
    double report_s; /* reading the counters, the model, writing the report */
    int opcodes_ran; /* the opcodes phase ran (opcodes_s, op) */
    double opcodes_s;
    au_opcodes_stats op;
} timing;

static void print_timing(const timing *tm)
{
    const live_timing *it = &tm->inject;
    if (tm->live)
        fprintf(stderr, "%s: timing: run %.3f s\n", prog, tm->run_s);
    else
        fprintf(stderr, "%s: timing: run n/a\n", prog);
    /* an implausible figure in the counters file: n/a, and where */
    if (tm->have_inject && it->setup_bad[0])
        fprintf(stderr, "%s: timing: setup n/a (%s)\n", prog, it->setup_bad);
    else if (tm->have_inject && it->setups)
        fprintf(stderr, "%s: timing: setup %.3f s (%d context%s%s)\n", prog, it->setup_s, it->setups,
                it->setups == 1 ? "" : "s",
                it->setups_beside == it->setups ? ", beside the program"
                : it->setups_beside             ? ", some beside the program"
                                                : "");
    else
        fprintf(stderr, "%s: timing: setup n/a\n", prog);
    if (tm->have_inject && it->launch_bad[0]) {
        fprintf(stderr, "%s: timing: launch-callbacks n/a (%s)\n", prog, it->launch_bad);
        fprintf(stderr, "%s: timing: module-loads n/a (as launch-callbacks)\n", prog);
    } else if (tm->have_inject && it->launch_lines) {
        fprintf(stderr, "%s: timing: launch-callbacks %.3f s (%lld launches measured)\n", prog, it->callbacks_s,
                it->launches);
        fprintf(stderr, "%s: timing: module-loads %.3f s\n", prog, it->module_loads_s);
    } else {
        fprintf(stderr, "%s: timing: launch-callbacks n/a\n", prog);
        fprintf(stderr, "%s: timing: module-loads n/a\n", prog);
    }
    fprintf(stderr, "%s: timing: report %.3f s\n", prog, tm->report_s);
    if (tm->opcodes_ran) {
        const au_opcodes_stats *op = &tm->op;
        fprintf(stderr, "%s: timing: opcodes %.3f s (%d cubins listed, %d listings from cache, %d nvdisasm runs", prog,
                tm->opcodes_s, op->cubins, op->cache_hits, op->nvdisasm_runs);
        if (op->cuobjdump_runs)
            fprintf(stderr, ", %d cuobjdump runs", op->cuobjdump_runs);
        fprintf(stderr, ")\n");
    } else {
        fprintf(stderr, "%s: timing: opcodes n/a\n", prog);
    }
    fprintf(stderr, "%s: timing: total %.3f s\n", prog, au_monotonic_s() - tm->start);
}

/* getopt_long over the whole command line: options may follow the files of --compare
 * (`--compare A B --csv`).  '+' stops at the first operand; it is kept in ops[] (*nops of them,
 * room for argc) and the scan goes on after it.  "--" ends the options (PROGRAM and its arguments
 * follow, never read as options).  *at: where the option just returned was read. */
static int next_option(int argc, char **argv, const struct option *opts, int *at, const char **ops, int *nops)
{
    for (;;) {
        int c = getopt_long(argc, argv, "+:i:t:k:o:qhV", opts, NULL);
        if (c != -1 || optind >= argc || optind != *at)
            return c; /* an option, the end, or "--" read (optind past it) */
        ops[(*nops)++] = argv[optind];
        *at = ++optind;
    }
}

/* Two options that exclude each other (--csv and --json): 0 when the setting so far is unset or
 * this option's value, else -1 after the error line. */
static int one_of(int current, int value, int unset, const char *which)
{
    if (current != value && current != unset) {
        fprintf(stderr, "%s: give only one of %s (see --help)\n", prog, which);
        return -1;
    }
    return 0;
}

/* One option of the command line into *o (c: next_option's answer; opt_text: the option as
 * written).  -1 to go on, or the exit status (--help, --version, a usage error). */
static int apply_option(int c, const char *opt_text, cli_options *o, int *signif_given)
{
    switch (c) {
    case 'i': /* several files make one report (the operands after them too) */
        o->args[o->nargs++] = optarg;
        o->nimport++;
        break;
    case 't': o->table_path = optarg; break;
    case 'k': o->regex = optarg; break;
    case 'o': o->out_base = optarg; break; /* shortened by output_base() */
    case 'q': o->quiet = 1; break;
    case O_FAMILY:
        o->family = optarg;
        o->family_given = 1;
        break;
    case O_BOUND:
        if (parse_pct("--bound", optarg, &o->thr.bound))
            return EXIT_USAGE;
        break;
    case O_SIGNIF:
        if (parse_pct("--significant", optarg, &o->thr.significant))
            return EXIT_USAGE;
        *signif_given = 1;
        break;
    case O_SKIP:
        if (parse_count("--launch-skip", optarg, &o->skip))
            return EXIT_USAGE;
        break;
    case O_COUNT:
        if (parse_count("--launch-count", optarg, &o->count))
            return EXIT_USAGE;
        break;
    case O_PER_KERNEL:
        if (parse_count("--launches-per-kernel", optarg, &o->per_kernel))
            return EXIT_USAGE;
        break;
    case O_FROM_START:
        if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
            fprintf(stderr, "%s: --profile-from-start takes on or off, not '%s'\n", prog, optarg);
            return EXIT_USAGE;
        }
        o->from_start = optarg;
        break;
    case O_CSV:
    case O_JSON:
        if (one_of((int)o->fmt, c == O_CSV ? AU_FMT_CSV : AU_FMT_JSON, AU_FMT_TABLE, "--csv and --json"))
            return EXIT_USAGE;
        o->fmt = c == O_CSV ? AU_FMT_CSV : AU_FMT_JSON;
        break;
    case O_METRICS: o->metrics = 1; break;
    case O_COMPARE: o->compare = 1; break;
    case O_OPCODES: o->opcodes = 1; break;
    case O_NO_OPCODES: o->opcodes = 0; break;
    case O_NO_CACHE: o->no_cache = 1; break;
    case O_TIMING: o->timing_on = 1; break;
    case O_SUMMARY:
    case O_PER_LAUNCH:
        if (one_of((int)o->view, c == O_SUMMARY ? AU_VIEW_SUMMARY : AU_VIEW_LAUNCHES, AU_VIEW_AUTO,
                   "--summary and --per-launch"))
            return EXIT_USAGE;
        o->view = c == O_SUMMARY ? AU_VIEW_SUMMARY : AU_VIEW_LAUNCHES;
        break;
    case O_NAME_WIDTH: {
        long w;
        if (au_parse_long(optarg, &w) != AU_OK || (w != 0 && (w < 8 || w > 4096))) {
            fprintf(stderr, "%s: --name-width needs 0 (no limit) or a whole number 8..4096, got '%s'\n", prog, optarg);
            return EXIT_USAGE;
        }
        o->name_width = (unsigned)w;
        break;
    }
    case O_BUSY:
        if (strcmp(optarg, "saturated") == 0)
            o->busy = AU_BUSY_SATURATED;
        else if (strcmp(optarg, "queue") == 0)
            o->busy = AU_BUSY_QUEUE;
        else {
            fprintf(stderr, "%s: --busy takes 'saturated' or 'queue', got '%s'\n", prog, optarg);
            return EXIT_USAGE;
        }
        break;
    case 'h': usage(stdout); return EXIT_OK;
    case 'V': printf("atomutil-profile %s\n", AU_VERSION_STRING); return EXIT_OK;
    case ':': fprintf(stderr, "%s: option '%s' needs an argument (see --help)\n", prog, opt_text); return EXIT_USAGE;
    default: fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, opt_text); return EXIT_USAGE;
    }
    return -1;
}

/* Checks that depend on several options, in the order of the messages' precedence.  -1 to go on,
 * or the exit status. */
static int check_options(cli_options *o, int signif_given)
{
    /* --bound alone below the default --significant lowers it with it */
    if (!signif_given && o->thr.significant > o->thr.bound)
        o->thr.significant = o->thr.bound;
    if (o->thr.significant > o->thr.bound) {
        fprintf(stderr, "%s: --significant (%g) must not exceed --bound (%g)\n", prog, o->thr.significant * 100,
                o->thr.bound * 100);
        return EXIT_USAGE;
    }
    if (o->metrics) {
        print_ncu_metrics();
        return EXIT_OK;
    }
    if (o->out_base && output_base(o->out_base, o->fmt) != 0)
        return EXIT_USAGE;
    if (o->out_base) { /* its patterns checked now; expanded once the profiled process is known */
        int usage;
        char *x = au_outname_expand(o->out_base, 0, &usage);
        if (!x)
            return usage ? EXIT_USAGE : EXIT_FAIL;
        free(x);
    }
    int modes = (o->nimport > 0) + o->compare + o->live;
    if (modes > 1) {
        fprintf(stderr, "%s: give only one of --import, --compare, -- PROGRAM (see --help)\n", prog);
        return EXIT_USAGE;
    }
    if (o->opcodes < 0)
        o->opcodes = o->family_given ? 0 : o->compare ? 0 : -1;
    if (o->compare) {
        if (o->opcodes > 0) {
            fprintf(stderr, "%s: --opcodes works with -- PROGRAM or --import, not --compare\n", prog);
            return EXIT_USAGE;
        }
        if (o->timing_on) {
            fprintf(stderr, "%s: --timing works with -- PROGRAM or --import, not --compare\n", prog);
            return EXIT_USAGE;
        }
        if (o->view != AU_VIEW_AUTO) {
            fprintf(stderr, "%s: --%s works with -- PROGRAM or --import, not --compare (one row per kernel already)\n",
                    prog, o->view == AU_VIEW_SUMMARY ? "summary" : "per-launch");
            return EXIT_USAGE;
        }
        if (o->nargs != 2) {
            fprintf(stderr, "%s: --compare takes two files, A and B (see --help)\n", prog);
            return EXIT_USAGE;
        }
        if (o->fmt == AU_FMT_JSON) {
            fprintf(stderr, "%s: --compare prints a table or --csv, not --json\n", prog);
            return EXIT_USAGE;
        }
        return -1;
    }
    if (o->nargs > 0 && !o->nimport) {
        fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, o->args[0]);
        return EXIT_USAGE;
    }
    if (!o->live && !o->nimport) {
        fprintf(stderr, "%s: nothing to do: give -- PROGRAM, --import FILE or --compare A B (see --help)\n", prog);
        return EXIT_USAGE;
    }
    if (o->from_start && !o->live) {
        fprintf(stderr, "%s: --profile-from-start works with -- PROGRAM only\n", prog);
        return EXIT_USAGE;
    }
    return -1;
}

/* The whole command line into *o.  -1 to go on, or the exit status (after its message). */
static int parse_options(int argc, char **argv, cli_options *o)
{
    static const struct option opts[] = {{"import", required_argument, 0, 'i'},
                                         {"table", required_argument, 0, 't'},
                                         {"family", required_argument, 0, O_FAMILY},
                                         {"bound", required_argument, 0, O_BOUND},
                                         {"significant", required_argument, 0, O_SIGNIF},
                                         {"kernel", required_argument, 0, 'k'},
                                         {"launch-skip", required_argument, 0, O_SKIP},
                                         {"launch-count", required_argument, 0, O_COUNT},
                                         {"launches-per-kernel", required_argument, 0, O_PER_KERNEL},
                                         {"profile-from-start", required_argument, 0, O_FROM_START},
                                         {"csv", no_argument, 0, O_CSV},
                                         {"json", no_argument, 0, O_JSON},
                                         {"output", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"print-ncu-metrics", no_argument, 0, O_METRICS},
                                         {"compare", no_argument, 0, O_COMPARE},
                                         {"busy", required_argument, 0, O_BUSY},
                                         {"opcodes", no_argument, 0, O_OPCODES},
                                         {"no-opcodes", no_argument, 0, O_NO_OPCODES},
                                         {"no-cache", no_argument, 0, O_NO_CACHE},
                                         {"timing", no_argument, 0, O_TIMING},
                                         {"summary", no_argument, 0, O_SUMMARY},
                                         {"per-launch", no_argument, 0, O_PER_LAUNCH},
                                         {"name-width", required_argument, 0, O_NAME_WIDTH},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    static const au_thresholds thr_default = AU_THRESHOLDS_DEFAULT;
    memset(o, 0, sizeof *o);
    o->family = "add";
    o->count = -1;
    o->per_kernel = -1;
    o->opcodes = -1;
    o->fmt = AU_FMT_TABLE;
    o->name_width = AU_NAME_WIDTH_DEFAULT;
    o->thr = thr_default;
    o->busy = AU_BUSY_SATURATED;
    int c, at = optind, signif_given = 0;

    opterr = 0;
    /* leading ':' makes a missing argument ':' rather than '?' (an "unknown option") */
    if (!(o->args = calloc((size_t)argc + 1, sizeof *o->args))) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_FAIL;
    }
    while ((c = next_option(argc, argv, opts, &at, o->args, &o->nargs)) != -1) {
        /* the option as written, for messages: argv[at] is the element getopt just read, and
         * optopt the short option inside it ("-xq" names -x, not a neighbouring argument) */
        char short_opt[3] = {'-', (char)optopt, '\0'};
        const char *opt_text = strncmp(argv[at], "--", 2) == 0 ? argv[at] : short_opt;
        at = optind;
        int rc = apply_option(c, opt_text, o, &signif_given);
        if (rc >= 0)
            return rc;
    }
    o->live = optind > at && optind < argc; /* "--" read, PROGRAM after it */
    o->program = argv + optind;
    return check_options(o, signif_given);
}

/* -o's BASE with its patterns expanded, %p as pid: into base; an exit status after the error line
 * (%p of a report whose process is unknown, out of memory), or -1. */
static int expand_base(const char *pattern, long pid, char *base, size_t size)
{
    if (pid < 0 && au_outname_has_pid(pattern)) {
        fprintf(stderr, "%s: -o %s: %%p: the report's first launch has no process id (no 'Process ID' column)\n", prog,
                pattern);
        return EXIT_USAGE;
    }
    int usage;
    char *x = au_outname_expand(pattern, pid, &usage);
    if (!x)
        return usage ? EXIT_USAGE : EXIT_FAIL;
    au_strlcpy(base, x, size);
    free(x);
    return -1;
}

/* --compare A B: both evaluated the same way, then side by side. */
static int run_compare(const cli_options *o)
{
    au_report ra, rb;
    au_table *ta = NULL, *tb = NULL;
    au_report_init(&ra);
    au_report_init(&rb);
    ra.name_width = rb.name_width = o->name_width;
    int rc = load_and_eval(&o->args[0], 1, o, &ra, &ta);
    if (rc == EXIT_OK && !o->quiet)
        warn_unusable(&ra);
    if (rc == EXIT_OK)
        rc = load_and_eval(&o->args[1], 1, o, &rb, &tb);
    if (rc == EXIT_OK && !o->quiet)
        warn_unusable(&rb);
    char base[4096]; /* with %p, the process of A's first launch */
    if (rc == EXIT_OK && o->out_base) {
        int st = expand_base(o->out_base, ra.launches[0].pid, base, sizeof base);
        rc = st >= 0 ? st : rc;
    }
    if (rc == EXIT_OK) {
        FILE *out = open_output(o->out_base ? base : NULL, o->fmt, o->quiet);
        if (!out)
            rc = EXIT_FAIL;
        else if (au_compare_render(&ra, &rb, o->fmt, out) != 0)
            rc = EXIT_FAIL;
        rc = close_output(out, rc);
    }
    au_report_free(&ra);
    au_report_free(&rb);
    au_table_free(ta);
    au_table_free(tb);
    return rc;
}

/* Where a report's counters and kernel code are: a live run's BASE.counters.csv and BASE.cubins/,
 * or the exports given to --import (and the BASE.cubins/ of the runs that made them). */
typedef struct {
    char counters[4200], base[4096], cubin_dir[4200]; /* a live run's */
    const char *const *files;                         /* the counters files or exports read */
    size_t nfiles;
    const char *live_file[1];
    live_result lr;
} run_files;

/* The selection, for the injection library (profile/inject/select.c): unset where not given, so
 * that nothing from the caller's environment selects instead.  n: room for each value. */
static void selection_env(const cli_options *o, const char *env[AU_ENV_COUNT], char n[3][32])
{
    snprintf(n[0], sizeof n[0], "%ld", o->skip);
    snprintf(n[1], sizeof n[1], "%ld", o->count);
    snprintf(n[2], sizeof n[2], "%ld", o->per_kernel);
    env[AU_ENV_KERNEL_REGEX] = o->regex;
    env[AU_ENV_LAUNCH_SKIP] = o->skip > 0 ? n[0] : NULL;
    env[AU_ENV_LAUNCH_COUNT] = o->count >= 0 ? n[1] : NULL;
    env[AU_ENV_LAUNCHES_PER_KERNEL] = o->per_kernel >= 0 ? n[2] : NULL;
    env[AU_ENV_PROFILE_FROM_START] = o->from_start;
}

/* The kernels' code of the counters file `counters`: BASE.cubins/ of BASE.counters.csv (as a live
 * run with -o BASE left them), else counters.cubins/. */
static void cubin_dir_of(const char *counters, char *dir, size_t size)
{
    size_t bl = strlen(counters), sl = strlen(".counters.csv");
    if (bl > sl && strcmp(counters + bl - sl, ".counters.csv") == 0)
        bl -= sl;
    snprintf(dir, size, "%.*s.cubins", (int)bl, counters);
}

/* A live run's files, made before its pid was known (%p as atomutil-profile's own), renamed to
 * name its pid; where that fails they keep their names, with a warning. */
static void rename_to_pid(const cli_options *o, run_files *f)
{
    char base[4096], counters[4200], cubins[4200];
    if (expand_base(o->out_base, f->lr.pid, base, sizeof base) >= 0 || strcmp(base, f->base) == 0)
        return;
    snprintf(counters, sizeof counters, "%s.counters.csv", base);
    snprintf(cubins, sizeof cubins, "%s.cubins", base);
    if (rename(f->counters, counters) != 0 ||
        (f->cubin_dir[0] && access(f->cubin_dir, F_OK) == 0 && rename(f->cubin_dir, cubins) != 0)) {
        fprintf(stderr, "%s: warning: cannot rename %s to %s (%%p, the program's pid): %s; BASE stays %s\n", prog,
                f->counters, counters, strerror(errno), f->base);
        rename(counters, f->counters); /* back, where the cubins could not follow */
        return;
    }
    au_strlcpy(f->base, base, sizeof f->base);
    au_strlcpy(f->counters, counters, sizeof f->counters);
    if (f->cubin_dir[0])
        au_strlcpy(f->cubin_dir, cubins, sizeof f->cubin_dir);
}

/* -- PROGRAM: runs it under CUPTI into f->counters.  -1 to go on to the report, or the exit
 * status (nothing measured, or profiling could not be set up). */
static int run_live(const cli_options *o, run_files *f, timing *tm)
{
    live_result *lr = &f->lr;
    int st;
    /* %p is the program's pid, known after the fork: the files get this process's first */
    if (o->out_base && (st = expand_base(o->out_base, (long)getpid(), f->base, sizeof f->base)) >= 0)
        return st;
    if (!o->out_base)
        snprintf(f->base, sizeof f->base, "atomutil-%ld", (long)getpid());
    snprintf(f->counters, sizeof f->counters, "%s.counters.csv", f->base);
    if (o->opcodes)
        snprintf(f->cubin_dir, sizeof f->cubin_dir, "%s.cubins", f->base);
    live_pass pass = {.path = f->counters,
                      .header = AU_NCU_CSV_HEADER,
                      .cubin_dir = o->opcodes ? f->cubin_dir : NULL,
                      .while_running = prefetch_table,
                      .ud = (void *)o};
    char counts[3][32];
    selection_env(o, pass.env, counts);
    st = au_live_run_pass(o->program, &pass, o->quiet, lr);
    if (st != 0)
        return st;
    if (o->out_base && au_outname_has_pid(o->out_base))
        rename_to_pid(o, f);
    tm->live = 1;
    tm->run_s = lr->run_s;
    f->live_file[0] = f->counters;
    f->files = f->live_file;
    f->nfiles = 1;
    if (lr->rows == 0 && lr->check_error[0]) { /* the cause, not "no launch was measured" */
        fprintf(stderr, "%s: %s\n", prog, lr->check_error);
        if (f->cubin_dir[0])
            rmdir(f->cubin_dir); /* only if empty */
        return lr->exit_status != 0 ? lr->exit_status : LIVE_EXIT_SETUP;
    }
    if (lr->rows == 0) {
        int selected = o->regex || o->skip || o->count >= 0 || o->per_kernel >= 0 || o->from_start;
        fprintf(stderr, "%s: no kernel launch was measured%s (counters file %s)\n", prog,
                lr->tool_errors ? ": profiling failed, see above"
                : selected      ? ": none was selected (check -k / --launch-skip / --launch-count / "
                                  "--launches-per-kernel / --profile-from-start)"
                                : ": the program launched no kernel, or did not use CUDA",
                f->counters);
        if (f->cubin_dir[0])
            rmdir(f->cubin_dir); /* only if empty */
        return lr->exit_status != 0 ? lr->exit_status : lr->tool_errors ? LIVE_EXIT_SETUP : EXIT_NOLAUNCH;
    }
    char name[1024]; /* the program's name, cleaned for the terminal */
    au_text_fit(o->program[0], name, sizeof name, 0, 0);
    if (lr->signal && !o->quiet)
        fprintf(stderr,
                "%s: warning: %s was ended by signal %d; the report covers the launches "
                "measured before it (counters kept in %s)\n",
                prog, name, lr->signal, f->counters);
    else if (lr->exit_status != 0 && !o->quiet)
        fprintf(stderr,
                "%s: warning: %s exited with status %d; the report covers the launches "
                "measured before it ended (counters kept in %s)\n",
                prog, name, lr->exit_status, f->counters);
    return -1;
}

/* Prices the jobs of one file's launches (view) by their opcodes where the kernels' code is at
 * cubin_dir.  The exit status. */
static int attach_file(const cli_options *o, const char *counters, const char *cubin_dir, au_report *view,
                       au_table *table, timing *tm)
{
    /* by default, a run or file without kernel code (an ncu export, code not captured) is
     * priced as --family without a word; --opcodes makes that an error */
    if (!au_opcodes_have_code(cubin_dir)) {
        if (o->opcodes > 0) {
            fprintf(stderr, "%s: %s: no kernel code (made by a live run of atomutil-profile -o BASE)\n", prog,
                    cubin_dir);
            return EXIT_FAIL;
        }
        return EXIT_OK;
    }
    unsigned flags = (o->quiet ? AU_OPCODES_QUIET : 0u) | (o->no_cache ? AU_OPCODES_NO_CACHE : 0u);
    au_opcodes_stats op;
    double t = au_monotonic_s();
    int st = au_opcodes_attach(view, table, counters, cubin_dir, flags, &op);
    tm->opcodes_s += au_monotonic_s() - t;
    tm->opcodes_ran = 1;
    tm->op.cubins += op.cubins;
    tm->op.cache_hits += op.cache_hits;
    tm->op.cache_bad += op.cache_bad;
    tm->op.nvdisasm_runs += op.nvdisasm_runs;
    tm->op.cuobjdump_runs += op.cuobjdump_runs;
    if (st != AU_OK && (o->opcodes > 0 || st != AU_E_NOTFOUND)) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* Prices the jobs by their opcodes, each file's launches with the kernels' code next to it (a live
 * run's f->cubin_dir).  The exit status. */
static int attach_opcodes(const cli_options *o, const run_files *f, au_report *rep, au_table *table, timing *tm)
{
    int rc = EXIT_OK;
    for (size_t i = 0, next; i < rep->count && rc == EXIT_OK; i = next) {
        unsigned file = rep->launches[i].file; /* a file's launches are one run of the report's */
        for (next = i; next < rep->count && rep->launches[next].file == file; ++next)
            ;
        au_report view = *rep; /* its launches only; owns nothing */
        view.launches = rep->launches + i;
        view.count = next - i;
        char dir[4200];
        if (o->live)
            au_strlcpy(dir, f->cubin_dir, sizeof dir);
        else
            cubin_dir_of(f->files[file], dir, sizeof dir);
        rc = attach_file(o, f->files[file], dir, &view, table, tm);
    }
    return rc;
}

/* The injection library's timing lines of every file, summed (the first implausible line kept). */
static void read_timing(const run_files *f, timing *tm)
{
    for (size_t i = 0; i < f->nfiles; ++i) {
        live_timing t;
        if (f->lr.started) /* a live run: read with its diagnostics (live.c) */
            t = f->lr.timing;
        else if (au_live_read_timing(f->files[i], &t) != AU_OK)
            continue;
        live_timing *s = &tm->inject;
        if (!tm->have_inject++) {
            *s = t;
            continue;
        }
        s->setups += t.setups;
        s->setups_beside += t.setups_beside;
        s->setup_s += t.setup_s;
        s->launch_lines += t.launch_lines;
        s->launches += t.launches;
        s->callbacks_s += t.callbacks_s;
        s->module_loads_s += t.module_loads_s;
        if (!s->setup_bad[0])
            au_strlcpy(s->setup_bad, t.setup_bad, sizeof s->setup_bad);
        if (!s->launch_bad[0])
            au_strlcpy(s->launch_bad, t.launch_bad, sizeof s->launch_bad);
    }
}

/* Reads f->files, evaluates, prices by opcodes and writes the report.  The exit status. */
static int run_report(const cli_options *o, const run_files *f, timing *tm)
{
    au_report rep;
    au_table *table = NULL;
    au_report_init(&rep);
    rep.view = o->view;
    rep.name_width = o->name_width;
    double t = au_monotonic_s();
    int rc = load_and_eval(f->files, f->nfiles, o, &rep, &table);
    tm->report_s = au_monotonic_s() - t;
    if (rc == EXIT_OK && o->opcodes)
        rc = attach_opcodes(o, f, &rep, table, tm);
    if (rc == EXIT_OK && !o->quiet)
        warn_unusable(&rep); /* after the opcodes, which can find a launch's U out of range */
    /* -o's BASE: a live run's, else with %p the process of the report's first launch */
    char base[4096];
    if (rc == EXIT_OK && o->out_base && !o->live) {
        int st = expand_base(o->out_base, rep.launches[0].pid, base, sizeof base);
        rc = st >= 0 ? st : rc;
    } else if (o->out_base) {
        au_strlcpy(base, f->base, sizeof base);
    }
    if (rc == EXIT_OK) {
        t = au_monotonic_s();
        FILE *out = open_output(o->out_base ? base : NULL, o->fmt, o->quiet);
        if (!out)
            rc = EXIT_FAIL;
        else if (au_report_render(&rep, o->fmt, out) != AU_OK)
            rc = EXIT_FAIL;
        rc = close_output(out, rc);
        tm->report_s += au_monotonic_s() - t;
    }
    /* the injection library's figures, before a live run's counters file is removed */
    if (o->timing_on)
        read_timing(f, tm);
    au_report_free(&rep);
    au_table_free(table);
    return rc;
}

/* After a live run's report: removes or keeps its counters and code.  The exit status. */
static int finish_live(const cli_options *o, const run_files *f, int rc)
{
    const live_result *lr = &f->lr;
    if (rc == EXIT_OK && !o->out_base && !lr->signal && lr->exit_status == 0 && lr->tool_errors == 0) {
        unlink(f->counters); /* complete and reported: nothing left to keep */
        if (o->opcodes)
            au_opcodes_remove(f->cubin_dir);
    } else if (rc != EXIT_OK || !o->out_base) {
        fprintf(stderr, "%s: counters kept in %s%s%s\n", prog, f->counters, o->opcodes ? ", kernel code in " : "",
                o->opcodes ? f->cubin_dir : "");
    }
    if (o->opcodes && f->cubin_dir[0])
        rmdir(f->cubin_dir); /* only if empty: no kernel code was kept */
    return lr->exit_status != 0 ? lr->exit_status : rc;
}

/* -- PROGRAM or --import FILE: one report. */
static int run_single(const cli_options *o, timing *tm)
{
    static run_files f; /* large; one per process */
    memset(&f, 0, sizeof f);
    f.files = o->args;
    f.nfiles = (size_t)o->nargs;
    if (o->live) {
        int st = run_live(o, &f, tm);
        if (st >= 0) {
            prefetch_free();
            return st;
        }
    }
    int rc = run_report(o, &f, tm);
    prefetch_free();
    if (o->live)
        rc = finish_live(o, &f, rc);
    if (o->timing_on)
        print_timing(tm);
    return rc;
}

int main(int argc, char **argv)
{
    timing tm;
    memset(&tm, 0, sizeof tm);
    tm.start = au_monotonic_s();
    cli_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc < 0)
        rc = o.compare ? run_compare(&o) : run_single(&o, &tm);
    free(o.args);
    return rc;
}
