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

static int parse(au_cal_config *cfg, char *err, const char *a0, const char *a1, const char *a2,
                 const char *a3)
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
    CHECK(c.cgrid == AU_CAL_CGRID_AUTO && c.pattern == -1);
    unsigned def;
    au_cal_parse_families("all", &def);
    CHECK(c.families == def);
    CHECK(def & (1u << au_cal_family_index("add")));
    CHECK_EQ_INT(parse(&c, err, "--quick", NULL, NULL, NULL), AU_OK);
    CHECK(c.quick && c.reps == AU_CAL_QUICK_REPS);
    CHECK_EQ_INT(parse(&c, err, "--method", "burst", NULL, NULL), AU_OK);
    CHECK(c.burst && c.jobs == 1);
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
    CHECK_EQ_INT(parse(&c, err, "--jobs", "64", NULL, NULL), AU_OK);
    CHECK(c.jobs == 64);
    CHECK_EQ_INT(parse(&c, err, "--pattern", "word", "--point", "add:4:32:0"), AU_OK);
    CHECK(c.pattern == AU_CAL_PAT_WORD && c.mode == AU_CAL_MODE_POINTS);
    CHECK_EQ_INT(parse(&c, err, "--point", "cast_spin:4:8:0", "--pattern", "bank"), AU_OK); /* a = lanes */
    CHECK_EQ_INT(parse(&c, err, "--point", "add:4:2:1", "--point", "cas64:64:32:0"), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_POINTS && c.npoints == 2);
    CHECK(c.points[1].family == au_cal_family_index("cas64") && c.points[1].n == 64 &&
          c.points[1].a == 32 && c.points[1].c == 0);
    CHECK_EQ_INT(parse(&c, err, "--compare", "a.csv", "b.csv", NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_COMPARE && strcmp(c.file_a, "a.csv") == 0 && strcmp(c.file_b, "b.csv") == 0);
    CHECK_EQ_INT(parse(&c, err, "--check-thinning", "f.csv", NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_THIN);
    CHECK_EQ_INT(parse(&c, err, "--list", NULL, NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_LIST);
    CHECK_EQ_INT(parse(&c, err, "--version", NULL, NULL, NULL), AU_OK);
    CHECK(c.mode == AU_CAL_MODE_VERSION);
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
    /* the usage text ends with examples, and names every option's default */
    const char *u = au_cal_usage();
    CHECK(strstr(u, "\nExamples:\n") != NULL);
    CHECK(strstr(u, "(default: 5)") && strstr(u, "(default: 2048)") && strstr(u, "(default: 0)"));
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
