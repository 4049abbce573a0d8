/*
 * test_cli.c - atomutil-calibrate's command-line contract, without a GPU: option parsing into the
 * configuration (defaults, each option, each usage error), and the binary's exit statuses and
 * one-line messages.  argv[1] = the atomutil-calibrate binary, argv[2] = a scratch directory.
 */
#include "cal.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int parse(au_cal_config *cfg, char *err, const char *a0, const char *a1, const char *a2, const char *a3)
{
    char *argv[6] = {"atomutil-calibrate", (char *)a0, (char *)a1, (char *)a2, (char *)a3, NULL};
    int argc = 1;
    while (argc < 5 && argv[argc])
        ++argc;
    argv[argc] = NULL;
    return au_cal_parse_args(argc, argv, cfg, err, 256);
}

static void test_defaults(void)
{
    au_cal_config c;
    char err[256];
    CHECK_EQ_INT(parse(&c, err, NULL, NULL, NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_TABLE && !c.output && c.device == 0 && !c.burst && !c.quick);
    CHECK(c.reps == AU_CAL_DEFAULT_REPS && c.jobs == AU_CAL_DEFAULT_JOBS);
    CHECK(c.dsmem_jobs == AU_CAL_DEFAULT_DSMEM_JOBS && c.named == 0 && c.merge == NULL);
    CHECK(c.cgrid == AU_CAL_CGRID_AUTO && c.pattern == -1);
    unsigned def;
    au_cal_parse_families("all", &def);
    CHECK(c.families == def);
    CHECK(def & (1u << au_cal_family_index("add")));
    CHECK((def & au_cal_dsmem_mask()) == au_cal_dsmem_mask()); /* all: the dsmem families too */
    CHECK_EQ_INT(parse(&c, err, "--quick", NULL, NULL, NULL), AU_OK);
    CHECK(c.quick && c.reps == AU_CAL_QUICK_REPS);
    CHECK_EQ_INT(parse(&c, err, "--method", "burst", NULL, NULL), AU_OK);
    CHECK(c.burst && c.jobs == 1 && c.dsmem_jobs == 1);
}

static void test_options(void)
{
    au_cal_config c;
    char err[256];
    CHECK_EQ_INT(parse(&c, err, "-o", "x.csv", "--device", "1"), AU_OK);
    CHECK(strcmp(c.output, "x.csv") == 0 && c.device == 1);
    CHECK_EQ_INT(parse(&c, err, "--families", "add,cas64", "--reps", "9"), AU_OK);
    CHECK(c.families == ((1u << au_cal_family_index("add")) | (1u << au_cal_family_index("cas64"))));
    CHECK(c.reps == 9);
    CHECK_EQ_INT(parse(&c, err, "--families", "all", "--c-grid", "full"), AU_OK);
    CHECK(c.families == (1u << au_cal_nfamilies) - 1 && c.cgrid == AU_CAL_CGRID_FULL);
    CHECK(c.named == 0); /* "all" names none one by one */
    CHECK_EQ_INT(parse(&c, err, "--jobs", "64", NULL, NULL), AU_OK);
    CHECK(c.jobs == 64 && c.dsmem_jobs == 64); /* a given K holds for the dsmem families too */
    /* the dsmem families by name; a table needs add: measured too unless --merge is given */
    const unsigned loc = 1u << au_cal_family_index("dsmem_local"), c16 = 1u << au_cal_family_index("dsmem_remote_c16"),
                   add = 1u << au_cal_family_index("add");
    CHECK_EQ_INT(parse(&c, err, "--families", "add,dsmem_local,dsmem_remote_c16", NULL, NULL), AU_OK);
    CHECK(c.families == (add | loc | c16) && c.named == (add | loc | c16) && !c.add_implied);
    CHECK_EQ_INT(parse(&c, err, "--quick", "--families", "dsmem_local,dsmem_remote_c16", NULL), AU_OK);
    CHECK(c.families == (add | loc | c16) && c.named == (loc | c16) && c.add_implied);
    CHECK_EQ_INT(parse(&c, err, "--families", "all,dsmem_local", NULL, NULL), AU_OK);
    CHECK(c.families == (1u << au_cal_nfamilies) - 1 && c.named == loc);
    {
        char *argv[] = {"atomutil-calibrate", "--families", "dsmem_local", "--merge", "t.csv", "-o", "t.csv", NULL};
        CHECK_EQ_INT(au_cal_parse_args(7, argv, &c, err, 256), AU_OK);
        CHECK(c.families == loc && strcmp(c.merge, "t.csv") == 0 && strcmp(c.output, "t.csv") == 0);
        CHECK(!c.add_implied);
    }
    CHECK_EQ_INT(parse(&c, err, "--pattern", "word", "--point", "add:4:32:0"), AU_OK);
    CHECK(c.pattern == AU_CAL_PAT_WORD && c.mode == AU_CAL_MODE_POINTS);
    CHECK_EQ_INT(parse(&c, err, "--point", "cast_spin:4:8:0", "--pattern", "bank"), AU_OK); /* a = lanes */
    CHECK_EQ_INT(parse(&c, err, "--point", "add:4:2:1", "--point", "cas64:64:32:0"), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_POINTS && c.npoints == 2);
    CHECK(c.points[1].family == au_cal_family_index("cas64") && c.points[1].n == 64 && c.points[1].a == 32 &&
          c.points[1].c == 0);
    CHECK_EQ_INT(parse(&c, err, "--compare", "a.csv", "b.csv", NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_COMPARE && strcmp(c.file_a, "a.csv") == 0 && strcmp(c.file_b, "b.csv") == 0);
    CHECK_EQ_INT(parse(&c, err, "--check-thinning", "f.csv", NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_THIN);
    CHECK_EQ_INT(parse(&c, err, "--list", NULL, NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_LIST);
    CHECK_EQ_INT(parse(&c, err, "--version", NULL, NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_VERSION);
    CHECK_EQ_INT(parse(&c, err, "--latency", NULL, NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_LATENCY && !c.merge && !c.add_implied);
    CHECK_EQ_INT(parse(&c, err, "--latency", "--merge", "t.csv", "-o"), AU_E_INVAL); /* -o without its value */
    {
        char *argv[] = {"atomutil-calibrate", "--merge", "t.csv", "--latency", "-o", "u.csv", NULL};
        CHECK_EQ_INT(au_cal_parse_args(6, argv, &c, err, sizeof err), AU_OK);
        CHECK(c.mode == AU_CAL_MODE_LATENCY && !strcmp(c.merge, "t.csv") && !strcmp(c.output, "u.csv"));
    }
}

/* Usage errors: each returns AU_E_INVAL with a message naming the problem. */
static void test_errors(void)
{
    static const struct {
        const char *a[4];
        const char *msg;
    } cases[] = {
        {{"--bogus"}, "unknown option"},
        {{"-x"}, "unknown option"},
        {{"-o"}, "needs a value"},
        {{"--device", "gpu0"}, "--device"},
        {{"--method", "fast"}, "--method"},
        {{"--families", "add,nope"}, "unknown family 'nope'"},
        {{"--reps", "0"}, "--reps"},
        {{"--reps", "3x"}, "--reps"},
        {{"--jobs", "-5"}, "--jobs"},
        {{"--c-grid", "half"}, "--c-grid"},
        {{"--pattern", "random"}, "--pattern"},
        {{"--pattern", "bank"}, "--point only"},
        {{"--point", "add:4:2"}, "FAMILY:N:A:C"},
        {{"--point", "add:4:2:5"}, "0 <= C <= N"},
        {{"--point", "add:4:33:0"}, "1 <= A <= 32"},
        {{"--point", "xyz:4:2:0"}, "unknown family"},
        {{"--point", "cast_spin:4:2:0"}, "a=2 not reachable"},
        {{"--compare", "a.csv"}, "two tables"},
        {{"--compare", "a.csv", "--list"}, "exclude each other"},
        {{"stray"}, "unexpected argument"},
        {{"--method", "burst", "--jobs", "8"}, "steady method"},
        {{"--point", "add:1:1:0", "--quick"}, "--point"},
        {{"--merge", "t.csv"}, "--merge wants -o FILE"},
        {{"--merge", "t.csv", "--list"}, "--merge applies to measuring a table"},
        {{"--point", "dsmem_remote:4:1:0"}, "measured in tables only"},
        {{"--latency", "--quick"}, "load latencies only"},
        {{"--latency", "--families", "add"}, "load latencies only"},
        {{"--latency", "--reps", "3"}, "load latencies only"},
        {{"--latency", "--point", "add:1:1:0"}, "exclude each other"},
        {{"--latency", "--merge", "t.csv"}, "--merge wants -o FILE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        au_cal_config c;
        char err[256];
        const int rc = parse(&c, err, cases[i].a[0], cases[i].a[1], cases[i].a[2], cases[i].a[3]);
        CHECK_EQ_INT(rc, AU_E_INVAL);
        if (!strstr(err, cases[i].msg)) {
            ++check_failures;
            fprintf(stderr, "case %zu: message '%s' lacks '%s'\n", i, err, cases[i].msg);
        }
    }
}

/* Runs the binary; returns its exit status and the first line of its stderr in line. */
static int run(const char *bin, const char *dir, const char *args, char *line, size_t size)
{
    char cmd[2048], errf[1024];
    snprintf(errf, sizeof errf, "%s/cli-stderr.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%s'", bin, args, errf);
    const int st = system(cmd);
    line[0] = '\0';
    FILE *f = fopen(errf, "r");
    if (f) {
        if (!fgets(line, (int)size, f))
            line[0] = '\0';
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether `bin --list` prints a line that starts with prefix. */
static int list_has(const char *bin, const char *dir, const char *prefix)
{
    char cmd[2048], out[1024], line[512];
    int found = 0;
    snprintf(out, sizeof out, "%s/cli-list.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' --list >'%s' 2>/dev/null", bin, out);
    if (system(cmd) != 0)
        return 0;
    FILE *f = fopen(out, "r");
    while (f && fgets(line, sizeof line, f))
        found |= strncmp(line, prefix, strlen(prefix)) == 0;
    if (f)
        fclose(f);
    return found;
}

static void test_binary(const char *bin, const char *dir)
{
    char line[512];
    CHECK_EQ_INT(run(bin, dir, "--help", line, sizeof line), 0);
    CHECK_EQ_INT(run(bin, dir, "--version", line, sizeof line), 0);
    CHECK_EQ_INT(run(bin, dir, "--list", line, sizeof line), 0);
    CHECK_EQ_INT(run(bin, dir, "--bogus", line, sizeof line), 2);
    CHECK(strncmp(line, "atomutil-calibrate: unknown option '--bogus'", 44) == 0);
    CHECK_EQ_INT(run(bin, dir, "--families add,nope", line, sizeof line), 2);
    CHECK_EQ_INT(run(bin, dir, "--compare /no/such/a.csv /no/such/b.csv", line, sizeof line), 1);
    CHECK(strstr(line, "/no/such/a.csv") != NULL);
    /* the dsmem families: listed with their opcode and cluster size; --merge reads its table
     * before it looks for a GPU */
    CHECK(list_has(bin, dir,
                   "family,sass,width,pattern,a_max,wavefronts_per_pass,default_c_grid,"
                   "cluster_size,operation"));
    CHECK(list_has(bin, dir, "add,ATOMS.ADD,32,bank,32,1,full,0,"));
    CHECK(list_has(bin, dir, "dsmem_local,ATOM.E.ADD,32,spread,32,1,zero,2,"));
    CHECK(list_has(bin, dir, "dsmem_remote_c16,ATOM.E.ADD,32,spread,32,1,zero,16,"));
    CHECK_EQ_INT(run(bin, dir, "--families dsmem_local --merge /no/such/t.csv -o /dev/null", line, sizeof line), 1);
    CHECK(strstr(line, "/no/such/t.csv") != NULL);
    /* the usage text ends with examples, and names every option's default */
    const char *u = au_cal_usage();
    CHECK(strstr(u, "\nExamples:\n") != NULL);
    CHECK(strstr(u, "(default: 5)") && strstr(u, "(default: 2048)") && strstr(u, "(default: 0)"));
    CHECK(strstr(u, "--merge FILE") && strstr(u, "dsmem") && strstr(u, "1024"));
}

int main(int argc, char **argv)
{
    test_defaults();
    test_options();
    test_errors();
    if (argc > 2)
        test_binary(argv[1], argv[2]);
    return check_report("test_calibrate_cli");
}
