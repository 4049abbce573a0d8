/*
 * atomutil-profile - reports, per kernel launch, the utilization U of the SM's shared-memory atomic
 * unit from hardware counters and a measured service-time table.
 * This file owns the command line: options, exit statuses (docs/cli.md), table choice, output.
 * Counters come from an Nsight Compute CSV export (--import).
 */
#include "atomutil/model.h"
#include "atomutil/util.h"
#include "ncu_import.h"
#include "tables.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            "usage: %s [options] --import EXPORT.csv\n"
            "       %s --print-ncu-metrics\n"
            "\n"
            "Reports, per kernel launch, the utilization U = busy / active cycles of the SM's\n"
            "shared-memory atomic unit, from hardware counters and a service-time table S(n,a,c).\n"
            "\n"
            "Input:\n"
            "  -i, --import FILE      Nsight Compute CSV export, made with\n"
            "                         ncu --csv --clock-control none --metrics $(%s --print-ncu-metrics) ./app > FILE\n"
            "      --print-ncu-metrics  print the comma-separated metric list for ncu --metrics and exit\n"
            "Model:\n"
            "  -t, --table FILE       service-time table (default: the installed table for the GPU named in\n"
            "                         the export, matched by name and compute capability; docs/table-format.md)\n"
            "      --family NAME      table family that prices the non-CAS jobs (default: add)\n"
            "      --bound PCT        U at or above which a launch is atomic-bound (default: 80)\n"
            "      --significant PCT  U at or above which the unit is a significant cost (default: 40)\n"
            "Selection:\n"
            "  -k, --kernel REGEX     only launches whose kernel name matches (POSIX extended; default: all)\n"
            "      --launch-skip N    skip the first N selected launches (default: 0)\n"
            "      --launch-count N   report at most N selected launches (default: all)\n"
            "Output (stdout unless -o):\n"
            "      --csv              one CSV row per launch\n"
            "      --json             JSON document\n"
            "  -o, --output BASE      write the report to BASE.txt, BASE.csv or BASE.json\n"
            "  -q, --quiet            no warnings on stderr\n"
            "  -h, --help             this text\n"
            "  -V, --version          version\n"
            "\n"
            "Exit status: 0 ok, 1 I/O or memory failure, 2 usage error, 3 malformed table or export,\n"
            "4 no table for this GPU (or family missing), 5 no launch in the export could be evaluated.\n"
            "\n"
            "Examples:\n"
            "  %s --import examples/data/histogram-h200.ncu.csv\n"
            "  %s --import run.csv --table tables/nvidia-h200.csv --json -o report\n"
            "  %s --import run.csv -k 'hist_kernel<0, 1>' --csv\n",
            prog, prog, prog, prog, prog, prog);
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

/* Keeps the launches that pass -k / --launch-skip / --launch-count (in order). */
static int select_launches(au_report *r, const char *regex, long skip, long count)
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
    size_t keep = 0;
    long seen = 0;
    for (size_t i = 0; i < r->count; ++i) {
        au_launch *l = &r->launches[i];
        int ok = !regex || regexec(&re, l->kernel, 0, NULL, 0) == 0;
        if (ok) {
            ok = seen >= skip && (count < 0 || seen - skip < count);
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

int main(int argc, char **argv)
{
    enum { O_FAMILY = 256, O_BOUND, O_SIGNIF, O_SKIP, O_COUNT, O_CSV, O_JSON, O_METRICS };
    static const struct option opts[] = {
        {"import", required_argument, 0, 'i'},     {"table", required_argument, 0, 't'},
        {"family", required_argument, 0, O_FAMILY}, {"bound", required_argument, 0, O_BOUND},
        {"significant", required_argument, 0, O_SIGNIF},
        {"kernel", required_argument, 0, 'k'},     {"launch-skip", required_argument, 0, O_SKIP},
        {"launch-count", required_argument, 0, O_COUNT},
        {"csv", no_argument, 0, O_CSV},            {"json", no_argument, 0, O_JSON},
        {"output", required_argument, 0, 'o'},     {"quiet", no_argument, 0, 'q'},
        {"print-ncu-metrics", no_argument, 0, O_METRICS},
        {"help", no_argument, 0, 'h'},             {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *import = NULL, *table_path = NULL, *family = "add", *regex = NULL, *out_base = NULL;
    long skip = 0, count = -1;
    int quiet = 0, metrics = 0;
    au_format fmt = AU_FMT_TABLE;
    au_thresholds thr = AU_THRESHOLDS_DEFAULT;
    int c, at = optind;

    opterr = 0;
    /* leading ':' makes a missing argument ':' rather than '?' (an "unknown option") */
    while ((c = getopt_long(argc, argv, "+:i:t:k:o:qhV", opts, NULL)) != -1) {
        /* the option as written, for messages: argv[at] is the element getopt just read, and
         * optopt the short option inside it ("-xq" names -x, not a neighbouring argument) */
        char short_opt[3] = {'-', (char)optopt, '\0'};
        const char *opt_text = strncmp(argv[at], "--", 2) == 0 ? argv[at] : short_opt;
        at = optind;
        switch (c) {
        case 'i': import = optarg; break;
        case 't': table_path = optarg; break;
        case 'k': regex = optarg; break;
        case 'o': out_base = optarg; break;
        case 'q': quiet = 1; break;
        case O_FAMILY: family = optarg; break;
        case O_BOUND: if (parse_pct("--bound", optarg, &thr.bound)) return EXIT_USAGE; break;
        case O_SIGNIF: if (parse_pct("--significant", optarg, &thr.significant)) return EXIT_USAGE; break;
        case O_SKIP: if (parse_count("--launch-skip", optarg, &skip)) return EXIT_USAGE; break;
        case O_COUNT: if (parse_count("--launch-count", optarg, &count)) return EXIT_USAGE; break;
        case O_CSV: fmt = AU_FMT_CSV; break;
        case O_JSON: fmt = AU_FMT_JSON; break;
        case O_METRICS: metrics = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        case 'V': printf("atomutil-profile %s\n", AU_VERSION_STRING); return EXIT_OK;
        case ':':
            fprintf(stderr, "%s: option '%s' needs an argument (see --help)\n", prog, opt_text);
            return EXIT_USAGE;
        default:
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, opt_text);
            return EXIT_USAGE;
        }
    }
    if (thr.significant > thr.bound) {
        fprintf(stderr, "%s: --significant (%g) must not exceed --bound (%g)\n", prog,
                thr.significant * 100, thr.bound * 100);
        return EXIT_USAGE;
    }
    if (metrics) {
        print_ncu_metrics();
        return EXIT_OK;
    }
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--") == 0)
            fprintf(stderr, "%s: live profiling of a program is not built into this version; record "
                            "an Nsight Compute export and use --import (see --help)\n", prog);
        else
            fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, argv[optind]);
        return EXIT_USAGE;
    }
    if (!import) {
        fprintf(stderr, "%s: nothing to do: give --import FILE (see --help)\n", prog);
        return EXIT_USAGE;
    }

    int rc = EXIT_OK, st;
    au_report rep;
    au_table *table = NULL;
    char *picked = NULL;
    FILE *out = stdout;
    au_report_init(&rep);

    if ((st = au_ncu_import(import, &rep)) != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        rc = st == AU_E_IO ? EXIT_FAIL : exit_for(st);
        goto done;
    }
    if (select_launches(&rep, regex, skip, count)) {
        rc = EXIT_USAGE;
        goto done;
    }
    if (rep.count == 0) {
        fprintf(stderr, "%s: %s: no kernel launch selected%s\n", prog, import,
                regex || skip || count >= 0 ? " (check -k / --launch-skip / --launch-count)" : "");
        rc = EXIT_NOLAUNCH;
        goto done;
    }
    unsigned tflags = 0;
    if (!table_path) {
        /* the first launch that names its GPU picks the table */
        const au_launch *ref = &rep.launches[0];
        for (size_t i = 0; i < rep.count; ++i)
            if (rep.launches[i].device[0] && rep.launches[i].cc_major) {
                ref = &rep.launches[i];
                break;
            }
        if (!ref->cc_major) {
            fprintf(stderr, "%s: %s has no CC column to pick a table by; pass --table FILE\n", prog,
                    import);
            rc = EXIT_NOTABLE;
            goto done;
        }
        if (au_pick_table(ref->device, ref->cc_major, ref->cc_minor, &picked, &tflags) != AU_OK) {
            fprintf(stderr, "%s: %s\n", prog, au_last_error());
            rc = EXIT_NOTABLE;
            goto done;
        }
        table_path = picked;
    }
    if ((st = au_table_load(table_path, &table)) != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        rc = st == AU_E_IO ? EXIT_NOTABLE : exit_for(st);
        goto done;
    }
    const au_table_meta *m = au_table_get_meta(table);
    if (!au_table_has_family(table, family)) {
        fprintf(stderr, "%s: table %s has no family '%s'\n", prog, table_path, family);
        rc = EXIT_NOTABLE;
        goto done;
    }
    if ((st = au_report_eval(&rep, table, family, &thr)) != AU_OK) {
        fprintf(stderr, "%s: %s\n", prog, au_last_error());
        rc = exit_for(st);
        goto done;
    }
    size_t usable = 0, missing = 0;
    for (size_t i = 0; i < rep.count; ++i) {
        if (rep.launches[i].res.flags & AU_F_MISSING)
            ++missing;
        else
            ++usable;
    }
    if (usable == 0) { /* one line: no warnings before this error */
        fprintf(stderr, "%s: %s: no launch has all required metrics (%s)\n", prog, import,
                rep.launches[0].missing_names);
        rc = EXIT_NOLAUNCH;
        goto done;
    }
    if (!quiet) {
        if (strcmp(m->status, "provisional") == 0)
            fprintf(stderr, "%s: warning: table %s is provisional (%s)\n", prog, table_path, m->note);
        if (tflags & AU_F_TABLE_OTHER_GPU)
            fprintf(stderr, "%s: warning: no table for this GPU's name; using %s (%s, same compute "
                            "capability)\n", prog, table_path, m->gpu_name);
        if (missing)
            fprintf(stderr, "%s: warning: %zu of %zu launches lack required metrics (shown as "
                            "'unknown'); re-export with the list of --print-ncu-metrics\n",
                    prog, missing, rep.count);
    }
    if (out_base) {
        static const char *const ext[] = {"txt", "csv", "json"};
        size_t pl = strlen(out_base) + 6;
        char *path = malloc(pl);
        if (!path) {
            fprintf(stderr, "%s: out of memory\n", prog);
            rc = EXIT_FAIL;
            goto done;
        }
        snprintf(path, pl, "%s.%s", out_base, ext[fmt]);
        out = fopen(path, "w");
        if (!out) {
            fprintf(stderr, "%s: %s: cannot create: %s\n", prog, path, strerror(errno));
            free(path);
            out = stdout;
            rc = EXIT_FAIL;
            goto done;
        }
        if (!quiet)
            fprintf(stderr, "%s: report written to %s\n", prog, path);
        free(path);
    }
    if (au_report_render(&rep, fmt, out) != AU_OK || fflush(out) != 0) {
        fprintf(stderr, "%s: writing the report failed: %s\n", prog, strerror(errno));
        rc = EXIT_FAIL;
    }
done:
    if (out != stdout && fclose(out) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "%s: closing the report failed: %s\n", prog, strerror(errno));
        rc = EXIT_FAIL;
    }
    au_report_free(&rep);
    au_table_free(table);
    free(picked);
    return rc;
}
