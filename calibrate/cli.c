/*
 * cli.c - atomutil-calibrate's command line: the option table, the usage text and the checks
 * that turn argv into an au_cal_config.  Parsing never touches the GPU, so every usage error is
 * reported (exit 2) before a device is opened.
 */
#include "cal.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

static const char usage_text[] =
    "Usage: atomutil-calibrate [OPTIONS]\n"
    "Measures the service time S(family, n, a, c) of the shared-memory atomic unit of one GPU and\n"
    "writes it as an atomutil table (format v1). n = warp-instructions queued in one SM's unit\n"
    "(1..max resident warps per SM), a = serialized wavefronts per job (1..32), c = how many of\n"
    "the n are ATOMS.CAS (the rest run the family's operation). The dsmem families measure\n"
    "atomics on distributed shared memory (thread block clusters, compute capability 9.0 or\n"
    "newer): n = 1..32 warps of one block per SM, a = lanes on each word, c = 0.\n"
    "\n"
    "Measurement:\n"
    "  -o, --output FILE      table to write (default: atomutil-<gpu>[-burst][-quick].csv in the\n"
    "                         current directory, <gpu> from the device name, e.g. nvidia-h200)\n"
    "      --device N         CUDA device ordinal (default: 0)\n"
    "      --method M         steady: n warps issue K jobs each in a closed loop, S = T/(n*K)\n"
    "                         (default); burst: one job per warp, S = T/n (the source paper's)\n"
    "      --families LIST    comma-separated families or 'all' (default: all; see --list); 'all'\n"
    "                         leaves out with a note the dsmem families a GPU cannot run\n"
    "      --quick            small grid (n 1,2,4,...,max; a 1,2,4,8,16,32; c 0, n/2, n) and 3\n"
    "                         repetitions: a check in a few seconds, not a table to ship\n"
    "      --reps N           repetitions per grid point, each on another SM (default: 5)\n"
    "      --jobs K           jobs per warp of the steady method (default: 2048); the dsmem\n"
    "                         families take 1024 unless --jobs is given\n"
    "      --c-grid G         c values: auto (each family's, see --list), full (0..n), sparse\n"
    "                         (0,n/4,n/2,3n/4,n) or ends (0,n) (default: auto; dsmem: 0 only)\n"
    "      --merge FILE       write FILE's rows and the families measured now (replacing FILE's\n"
    "                         rows of those families) to -o, which may be FILE itself; metadata\n"
    "                         from FILE, its note extended; FILE must be of this GPU (default:\n"
    "                         none: the table holds what is measured now, and family add, which\n"
    "                         every table needs, is measured too when --families lacks it)\n"
    "      --point F:N:A:C    measure one point on one SM in its own launch and print it as CSV\n"
    "                         on stdout (repeatable; for counter checks under ncu)\n"
    "      --pattern P        with --point: put the lanes of every family's jobs in pattern P,\n"
    "                         A then counting active lanes: bank (distinct words of one bank),\n"
    "                         word (one word) or distinct (distinct banks) (default: each\n"
    "                         family's own pattern, A = serialized passes; see --list)\n"
    "      --latency          measure only the load latencies every table's header gets (one\n"
    "                         thread's dependent loads from L2 and from DRAM, in SM cycles) and\n"
    "                         MATCH.ANY's cost per distinct lane value, and print them as CSV;\n"
    "                         with --merge FILE -o OUT, write FILE with them\n"
    "\n"
    "Tables:\n"
    "      --compare A B      repeatability of two tables: median absolute relative difference\n"
    "                         per family and worst cells; exit 1 when over 2 %\n"
    "      --check-thinning T interpolation error of the sparse c grid, against table T measured\n"
    "                         with --c-grid full; exit 1 when the median is over 2 %\n"
    "      --list             list the kernel families and exit\n"
    "  -h, --help             this text\n"
    "  -V, --version          version\n"
    "\n"
    "Results go to the table file (or stdout for --point, --latency, --compare, --check-thinning);\n"
    "progress (on a terminal only) and the closing summary go to stderr. Exit status: 0 success,\n"
    "1 failure, 2 usage error, 3 no usable CUDA device.\n"
    "\n"
    "Examples:\n"
    "  atomutil-calibrate -o tables/nvidia-h200.csv\n"
    "  atomutil-calibrate --quick -o /tmp/quick.csv\n"
    "  atomutil-calibrate --method burst --families add -o /tmp/burst.csv\n"
    "  atomutil-calibrate --families dsmem_local,dsmem_remote --merge tables/nvidia-h100.csv \\\n"
    "      -o tables/nvidia-h100.csv\n"
    "  atomutil-calibrate --point add:32:8:0 --point cas64:4:2:0\n"
    "  atomutil-calibrate --latency --merge tables/nvidia-h100.csv -o tables/nvidia-h100.csv\n"
    "  atomutil-calibrate --compare run1.csv run2.csv\n";

const char *au_cal_usage(void)
{
    return usage_text;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return AU_E_INVAL;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    long v;
    if (au_parse_long(s, &v) || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int au_cal_parse_point(const char *s, au_cal_pspec *out)
{
    char buf[128];
    char *field[4];
    int k = 0;
    if (strlen(s) >= sizeof buf)
        return au_set_error(AU_E_INVAL, "point spec too long");
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
        if (k < 4)
            field[k++] = tok;
        else
            return au_set_error(AU_E_INVAL, "point '%.40s': want FAMILY:N:A:C", s);
    if (k != 4)
        return au_set_error(AU_E_INVAL, "point '%.40s': want FAMILY:N:A:C", s);
    out->family = au_cal_family_index(field[0]);
    if (out->family < 0)
        return au_set_error(AU_E_INVAL, "point '%.40s': unknown family '%.40s'", s, field[0]);
    if (au_cal_is_dsmem(&au_cal_families[out->family]))
        return au_set_error(AU_E_INVAL,
                            "point '%.40s': the dsmem families are measured in tables "
                            "only (--families %.40s)",
                            s, field[0]);
    if (parse_int(field[1], 1, 1024, &out->n) || parse_int(field[2], 1, AU_A_MAX, &out->a) ||
        parse_int(field[3], 0, 1024, &out->c) || out->c > out->n)
        return au_set_error(AU_E_INVAL, "point '%.40s': need N >= 1, 1 <= A <= %d, 0 <= C <= N", s, AU_A_MAX);
    return AU_OK;
}

enum {
    OPT_DEVICE = 256,
    OPT_METHOD,
    OPT_FAMILIES,
    OPT_QUICK,
    OPT_REPS,
    OPT_JOBS,
    OPT_CGRID,
    OPT_PATTERN,
    OPT_POINT,
    OPT_COMPARE,
    OPT_THIN,
    OPT_LIST,
    OPT_MERGE,
    OPT_LATENCY,
};

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"method", required_argument, NULL, OPT_METHOD},
    {"families", required_argument, NULL, OPT_FAMILIES},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"reps", required_argument, NULL, OPT_REPS},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"c-grid", required_argument, NULL, OPT_CGRID},
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"point", required_argument, NULL, OPT_POINT},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"check-thinning", required_argument, NULL, OPT_THIN},
    {"list", no_argument, NULL, OPT_LIST},
    {"merge", required_argument, NULL, OPT_MERGE},
    {"latency", no_argument, NULL, OPT_LATENCY},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Sets the mode once: two actions on one command line are a usage error. */
static int set_mode(au_cal_config *cfg, au_cal_mode m, char *err, size_t errlen)
{
    if (cfg->mode != AU_CAL_MODE_TABLE && cfg->mode != m)
        return fail(err, errlen, "--point, --latency, --compare, --check-thinning and --list exclude each other");
    cfg->mode = m;
    return AU_OK;
}

/* The checks and defaults that need every option read: positional arguments, combinations,
 * reps and jobs, add implied, points against their family's pattern. */
static int finish_config(int argc, char **argv, au_cal_config *cfg, int fams_given, int jobs_given, char *err,
                         size_t errlen)
{
    /* --compare A B: B is the one positional argument; nothing else takes one */
    if (cfg->mode == AU_CAL_MODE_COMPARE) {
        if (argc - optind != 1)
            return fail(err, errlen, "--compare wants two tables: --compare A.csv B.csv");
        cfg->file_b = argv[optind];
    } else if (optind < argc) {
        return fail(err, errlen, "unexpected argument '%.40s'", argv[optind]);
    }
    if (cfg->burst && cfg->jobs > 1)
        return fail(err, errlen, "--jobs applies to the steady method (burst issues one job per warp)");
    if (cfg->mode == AU_CAL_MODE_LATENCY && (fams_given || cfg->quick || cfg->burst || jobs_given || cfg->reps))
        return fail(err, errlen,
                    "--latency measures the load latencies only: no --families, --quick, --method, --jobs or --reps");
    if (cfg->mode == AU_CAL_MODE_POINTS && (fams_given || cfg->quick))
        return fail(err, errlen, "--point measures the given points: no --families or --quick");
    if (cfg->pattern >= 0 && cfg->mode != AU_CAL_MODE_POINTS)
        return fail(err, errlen, "--pattern applies to --point only (tables use each family's pattern)");
    if (!cfg->reps)
        cfg->reps = cfg->quick ? AU_CAL_QUICK_REPS : AU_CAL_DEFAULT_REPS;
    if (!cfg->jobs)
        cfg->jobs = cfg->burst ? 1 : AU_CAL_DEFAULT_JOBS;
    cfg->dsmem_jobs = jobs_given || cfg->burst ? cfg->jobs : AU_CAL_DEFAULT_DSMEM_JOBS;
    if (cfg->merge && cfg->mode != AU_CAL_MODE_TABLE && cfg->mode != AU_CAL_MODE_LATENCY)
        return fail(err, errlen,
                    "--merge applies to measuring a table or --latency (no --point, --compare, "
                    "--check-thinning or --list)");
    if (cfg->merge && !cfg->output)
        return fail(err, errlen,
                    "--merge wants -o FILE for the merged table (it may be the "
                    "--merge file itself)");
    /* a table needs add (docs/table-format.md): measured too unless the rows go into an existing
     * table (main says so on stderr) */
    const unsigned add = 1u << au_cal_family_index("add");
    if (cfg->mode == AU_CAL_MODE_TABLE && !cfg->merge && !(cfg->families & add)) {
        cfg->families |= add;
        cfg->add_implied = 1;
    }
    /* a point's a is checked against its family's pattern only now: --pattern may follow it */
    for (int i = 0; i < cfg->npoints; ++i) {
        au_cal_point pt;
        const au_cal_pspec *q = &cfg->points[i];
        if (au_cal_make_point(q->family, q->n, q->a, q->c, cfg->jobs, cfg->pattern, &pt))
            return fail(err, errlen, "--point: %s", au_last_error());
    }
    return AU_OK;
}

int au_cal_parse_args(int argc, char **argv, au_cal_config *cfg, char *err, size_t errlen)
{
    int opt, rc = AU_OK, fams_given = 0, jobs_given = 0;
    memset(cfg, 0, sizeof *cfg);
    cfg->pattern = -1;
    cfg->cgrid = AU_CAL_CGRID_AUTO;
    au_cal_parse_families("all", &cfg->families);
    err[0] = '\0';
    opterr = 0; /* our own messages */
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":o:hV", options, NULL)) != -1) {
        switch (opt) {
        case 'o': cfg->output = optarg; break;
        case OPT_DEVICE:
            if (parse_int(optarg, 0, 1023, &cfg->device))
                return fail(err, errlen, "--device wants a device ordinal, got '%.40s'", optarg);
            break;
        case OPT_METHOD:
            if (strcmp(optarg, "steady") == 0)
                cfg->burst = 0;
            else if (strcmp(optarg, "burst") == 0)
                cfg->burst = 1;
            else
                return fail(err, errlen, "--method wants steady or burst, got '%.40s'", optarg);
            break;
        case OPT_FAMILIES:
            if (au_cal_parse_families_named(optarg, &cfg->families, &cfg->named))
                return fail(err, errlen, "--families: %s", au_last_error());
            fams_given = 1;
            break;
        case OPT_QUICK: cfg->quick = 1; break;
        case OPT_REPS:
            if (parse_int(optarg, 1, 99, &cfg->reps))
                return fail(err, errlen, "--reps wants 1..99, got '%.40s'", optarg);
            break;
        case OPT_JOBS:
            if (parse_int(optarg, 1, 65536, &cfg->jobs))
                return fail(err, errlen, "--jobs wants 1..65536, got '%.40s'", optarg);
            jobs_given = 1;
            break;
        case OPT_CGRID:
            if (strcmp(optarg, "auto") == 0)
                cfg->cgrid = AU_CAL_CGRID_AUTO;
            else if (strcmp(optarg, "full") == 0)
                cfg->cgrid = AU_CAL_CGRID_FULL;
            else if (strcmp(optarg, "sparse") == 0)
                cfg->cgrid = AU_CAL_CGRID_SPARSE;
            else if (strcmp(optarg, "ends") == 0)
                cfg->cgrid = AU_CAL_CGRID_ENDS;
            else
                return fail(err, errlen, "--c-grid wants auto, full, sparse or ends, got '%.40s'", optarg);
            break;
        case OPT_PATTERN:
            if (strcmp(optarg, "bank") == 0)
                cfg->pattern = AU_CAL_PAT_BANK;
            else if (strcmp(optarg, "word") == 0)
                cfg->pattern = AU_CAL_PAT_WORD;
            else if (strcmp(optarg, "distinct") == 0)
                cfg->pattern = AU_CAL_PAT_DISTINCT;
            else
                return fail(err, errlen, "--pattern wants bank, word or distinct, got '%.40s'", optarg);
            break;
        case OPT_POINT:
            if ((rc = set_mode(cfg, AU_CAL_MODE_POINTS, err, errlen)))
                return rc;
            if (cfg->npoints == AU_CAL_MAX_POINTS)
                return fail(err, errlen, "at most %d --point options", AU_CAL_MAX_POINTS);
            if (au_cal_parse_point(optarg, &cfg->points[cfg->npoints]))
                return fail(err, errlen, "--point: %s", au_last_error());
            cfg->npoints++;
            break;
        case OPT_COMPARE:
            if ((rc = set_mode(cfg, AU_CAL_MODE_COMPARE, err, errlen)))
                return rc;
            cfg->file_a = optarg;
            break;
        case OPT_THIN:
            if ((rc = set_mode(cfg, AU_CAL_MODE_THIN, err, errlen)))
                return rc;
            cfg->file_a = optarg;
            break;
        case OPT_LIST:
            if ((rc = set_mode(cfg, AU_CAL_MODE_LIST, err, errlen)))
                return rc;
            break;
        case OPT_MERGE: cfg->merge = optarg; break;
        case OPT_LATENCY:
            if ((rc = set_mode(cfg, AU_CAL_MODE_LATENCY, err, errlen)))
                return rc;
            break;
        case 'h': cfg->mode = AU_CAL_MODE_HELP; return AU_OK;
        case 'V': cfg->mode = AU_CAL_MODE_VERSION; return AU_OK;
        case ':': return fail(err, errlen, "option '%.40s' needs a value", argv[optind - 1]);
        default: return fail(err, errlen, "unknown option '%.40s'", argv[optind - 1]);
        }
    }
    return finish_config(argc, argv, cfg, fams_given, jobs_given, err, errlen);
}
