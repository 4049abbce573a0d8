/*
 * options.c - atomutil-profile's command line: the usage text, each option read into cli_options
 * (getopt_long over the whole line, so that options may follow the files of --compare) and the
 * checks that depend on several options, in the order of their messages' precedence (docs/cli.md).
 */
#include "cli.h"
#include "outname.h"

#include "atomutil/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "atomutil-profile";

/* The usage text's first half: the forms, the input and the model's options. */
static void usage_input(FILE *f)
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
            "                         (details or --page raw), or an Nsight Compute report (.ncu-rep), read\n"
            "                         through ncu --import FILE --csv --page raw (ncu: $ATOMUTIL_NCU, else PATH)\n"
            "                         several files (after one --import, or -i each) make one report: each\n"
            "                         launch keeps its file; --summary shows each file and all together\n"
            "      --compare A B      compare two counters files or exports kernel by kernel (options may\n"
            "                         also follow A and B)\n"
            "      --pair KA=KB[:CURE]  with --compare: kernel KA of A beside kernel KB of B, a variant a cure\n"
            "                         made of it, with the advisor's prediction for KB from KA (CURE: KA's best\n"
            "                         by default; docs/advisor.md); repeatable; A and B may be one file\n"
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
            "                         with --import, the BASE.cubins/ of such a run, or a report's executions\n"
            "                         per opcode (ncu --set full).  Given explicitly, missing\n"
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
            "                         --bound where that is lower)\n",
            prog, prog, prog, prog, prog);
}

/* The usage text's second half: selection, output, exit statuses and examples. */
static void usage_output(FILE *f)
{
    fprintf(f,
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
            "      --name-width N     kernel column of the tables: N columns at most (default 32; 0: the widest\n"
            "                         name); names as ncu --kernel-name-base function prints them, numbered [n]\n"
            "                         where cut or shared, in full after the table\n"
            "      --wide             the tables with every column (the model's J/SM, N, c, S, B, T; grids in\n"
            "                         full; the summary's mean time and most common verdict; --compare's jobs);\n"
            "                         by default they keep their key columns within 120 columns\n"
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
            prog, prog, prog, prog, prog, prog, prog, prog, prog, prog);
}

static void usage(FILE *f)
{
    usage_input(f);
    usage_output(f);
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
    for (size_t i = 0, k = 0; i < n; ++i)
        if (au_metric_for_ncu(&d[i]))
            printf("%s%s", k++ ? "," : "", d[i].name);
    printf("\n");
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
    O_NAME_WIDTH,
    O_WIDE,
    O_PAIR
};

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

const char *au_options_ext(au_format fmt)
{
    return report_ext[fmt];
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

/* An option that takes a value: its value read into *o.  -1 to go on, or EXIT_USAGE after the
 * message. */
static int apply_value(int c, cli_options *o, int *signif_given)
{
    long w;
    switch (c) {
    case O_BOUND: return parse_pct("--bound", optarg, &o->thr.bound) ? EXIT_USAGE : -1;
    case O_SIGNIF: *signif_given = 1; return parse_pct("--significant", optarg, &o->thr.significant) ? EXIT_USAGE : -1;
    case O_SKIP: return parse_count("--launch-skip", optarg, &o->skip) ? EXIT_USAGE : -1;
    case O_COUNT: return parse_count("--launch-count", optarg, &o->count) ? EXIT_USAGE : -1;
    case O_PER_KERNEL: return parse_count("--launches-per-kernel", optarg, &o->per_kernel) ? EXIT_USAGE : -1;
    case O_FROM_START:
        if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
            fprintf(stderr, "%s: --profile-from-start takes on or off, not '%s'\n", prog, optarg);
            return EXIT_USAGE;
        }
        o->from_start = optarg;
        return -1;
    case O_NAME_WIDTH:
        if (au_parse_long(optarg, &w) != AU_OK || (w != 0 && (w < 8 || w > 4096))) {
            fprintf(stderr, "%s: --name-width needs 0 (no limit) or a whole number 8..4096, got '%s'\n", prog, optarg);
            return EXIT_USAGE;
        }
        o->name_width = (unsigned)w;
        return -1;
    default: /* O_BUSY */
        if (strcmp(optarg, "saturated") == 0)
            o->busy = AU_BUSY_SATURATED;
        else if (strcmp(optarg, "queue") == 0)
            o->busy = AU_BUSY_QUEUE;
        else {
            fprintf(stderr, "%s: --busy takes 'saturated' or 'queue', got '%s'\n", prog, optarg);
            return EXIT_USAGE;
        }
        return -1;
    }
}

/* --pair KA=KB[:CURE] into o->pairs, split in place (optarg is argv's); 0, or -1 after the error line. */
static int parse_pair(char *spec, cli_options *o)
{
    char *eq = strchr(spec, '='), *colon = eq ? strrchr(eq, ':') : NULL;
    if (o->npairs == AU_MAX_PAIRS) {
        fprintf(stderr, "%s: --pair: at most %d pairs\n", prog, AU_MAX_PAIRS);
        return -1;
    }
    if (!eq || eq == spec || eq[1] == '\0' || eq[1] == ':' || (colon && colon[1] == '\0')) {
        fprintf(stderr, "%s: --pair takes KERNEL_A=KERNEL_B or KERNEL_A=KERNEL_B:CURE, got '%s'\n", prog, spec);
        return -1;
    }
    au_kernel_pair *p = &o->pairs[o->npairs];
    p->cure = -1;
    if (colon) {
        for (int k = 0; k < AU_CURE_COUNT && p->cure < 0; ++k)
            if (strcmp(colon + 1, au_cure_name(k)) == 0)
                p->cure = k;
        if (p->cure < 0) {
            fprintf(stderr, "%s: --pair %s: unknown cure '%s' (one of", prog, spec, colon + 1);
            for (int k = 0; k < AU_CURE_COUNT; ++k)
                fprintf(stderr, " %s", au_cure_name(k));
            fprintf(stderr, ")\n");
            return -1;
        }
        *colon = '\0';
    }
    *eq = '\0';
    p->a = spec, p->b = eq + 1;
    o->npairs++;
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
    case O_SIGNIF:
    case O_SKIP:
    case O_COUNT:
    case O_PER_KERNEL:
    case O_FROM_START:
    case O_NAME_WIDTH:
    case O_BUSY: return apply_value(c, o, signif_given);
    case O_CSV:
    case O_JSON:
        if (one_of((int)o->fmt, c == O_CSV ? AU_FMT_CSV : AU_FMT_JSON, AU_FMT_TABLE, "--csv and --json"))
            return EXIT_USAGE;
        o->fmt = c == O_CSV ? AU_FMT_CSV : AU_FMT_JSON;
        break;
    case O_METRICS: o->metrics = 1; break;
    case O_WIDE: o->wide = 1; break;
    case O_COMPARE: o->compare = 1; break;
    case O_PAIR: return parse_pair(optarg, o) ? EXIT_USAGE : -1;
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
    if (o->wide && o->fmt != AU_FMT_TABLE) {
        fprintf(stderr, "%s: --wide shapes the human table; --csv and --json hold every column already\n", prog);
        return EXIT_USAGE;
    }
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
    if (o->npairs && !o->compare) {
        fprintf(stderr, "%s: --pair works with --compare A B only\n", prog);
        return EXIT_USAGE;
    }
    if (o->opcodes < 0)
        o->opcodes = o->family_given ? 0 : -1;
    if (o->compare) {
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
        if (o->live)
            fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, o->args[0]);
        else /* most likely the program, without the "--" before it */
            fprintf(stderr, "%s: unexpected argument '%s': to profile a program, put it after --: %s [options] -- %s\n",
                    prog, o->args[0], prog, o->args[0]);
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

int au_options_parse(int argc, char **argv, cli_options *o)
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
                                         {"pair", required_argument, 0, O_PAIR},
                                         {"busy", required_argument, 0, O_BUSY},
                                         {"opcodes", no_argument, 0, O_OPCODES},
                                         {"no-opcodes", no_argument, 0, O_NO_OPCODES},
                                         {"no-cache", no_argument, 0, O_NO_CACHE},
                                         {"timing", no_argument, 0, O_TIMING},
                                         {"summary", no_argument, 0, O_SUMMARY},
                                         {"per-launch", no_argument, 0, O_PER_LAUNCH},
                                         {"name-width", required_argument, 0, O_NAME_WIDTH},
                                         {"wide", no_argument, 0, O_WIDE},
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
