/*
 * test_counters_file.c - the counters-file reader and writer (profile/import/counters_file.h) on
 * recorded counters files and on odd lines.
 */
#include "atomutil/model.h"
#include "check.h"
#include "counters_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long kinds[AU_CF_OTHER + 1];
    long lines;
} tally;

static int count(const au_cf_line *l, void *ud)
{
    tally *t = ud;
    t->kinds[l->kind]++;
    t->lines = l->lineno;
    return 0;
}

/* counts from grep on the recorded files */
static void test_recorded(const char *dir)
{
    char p[1024];
    tally t;
    snprintf(p, sizeof p, "%s/opcodes/validation-h200.counters.csv", dir);
    memset(&t, 0, sizeof t);
    CHECK_EQ_INT(au_cf_read(p, (size_t)1 << 30, count, &t), AU_OK);
    CHECK_EQ_INT(t.lines, 2184);
    CHECK_EQ_INT(t.kinds[AU_CF_ROW], 2169);
    CHECK_EQ_INT(t.kinds[AU_CF_CODE], 13);
    CHECK_EQ_INT(t.kinds[AU_CF_GRAPH], 0);
    CHECK_EQ_INT(t.kinds[AU_CF_INFO] + t.kinds[AU_CF_WARNING] + t.kinds[AU_CF_ERROR], 2);
    snprintf(p, sizeof p, "%s/opcodes/persm-h200.counters.csv", dir);
    memset(&t, 0, sizeof t);
    CHECK_EQ_INT(au_cf_read(p, (size_t)1 << 30, count, &t), AU_OK);
    CHECK_EQ_INT(t.kinds[AU_CF_ROW], 17);
    CHECK_EQ_INT(t.kinds[AU_CF_CODE], 2);
    snprintf(p, sizeof p, "%s/opcodes/no-such-file.counters.csv", dir);
    CHECK(au_cf_read(p, (size_t)1 << 30, count, &t) < 0);
}

static au_cf_kind kind_of(const char *text, const char **rest)
{
    static char buf[256];
    au_cf_line l;
    snprintf(buf, sizeof buf, "%s", text);
    au_cf_classify(buf, 1, &l);
    *rest = l.text ? l.text : l.level;
    return l.kind;
}

static void test_odd_lines(void)
{
    const char *r;
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 code: 5 _Z1kv k()", &r), AU_CF_CODE);
    CHECK(strcmp(r, "5 _Z1kv k()") == 0);
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 graph: 3 _Z1kv _Z1jv", &r), AU_CF_GRAPH);
    CHECK(strcmp(r, "3 _Z1kv _Z1jv") == 0);
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 timing: setup context=1 s=0.1", &r), AU_CF_TIMING);
    CHECK(strcmp(r, "setup context=1 s=0.1") == 0);
    /* the free-text timing lines of earlier versions are notes now */
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 info: timing: setup 0.1 s (context 1)", &r), AU_CF_INFO);
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 timing:", &r), AU_CF_OTHER); /* no text */
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 error: permission: x", &r), AU_CF_ERROR);
    CHECK(strcmp(r, "permission: x") == 0);
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 selection: 1 of 2", &r), AU_CF_OTHER); /* not a kind */
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 warning:x", &r), AU_CF_OTHER);
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12", &r), AU_CF_OTHER);          /* no level */
    CHECK_EQ_INT(kind_of("==ATOMUTIL==  code: 1 a b", &r), AU_CF_CODE); /* an empty pid field */
    CHECK_EQ_INT(kind_of("==ATOMUTIL==12 code: 1 a b", &r), AU_CF_OTHER);
    CHECK_EQ_INT(kind_of("\"1\",\"2\"", &r), AU_CF_ROW);
    CHECK_EQ_INT(kind_of("ID,Process ID", &r), AU_CF_OTHER);
    CHECK_EQ_INT(kind_of("", &r), AU_CF_OTHER);
}

static void test_writer(void)
{
    char buf[64], small[8];
    int n = au_cf_head(buf, sizeof buf, 4242, AU_CF_CODE);
    CHECK(strcmp(buf, "==ATOMUTIL== 4242 code: ") == 0);
    CHECK_EQ_INT(n, (int)strlen(buf));
    CHECK_EQ_INT(au_cf_head(small, sizeof small, 1, AU_CF_WARNING), 24); /* snprintf's length */
    CHECK(strlen(small) == 7);
    const char *r;
    snprintf(buf + n, sizeof buf - (size_t)n, "7 _Z1kv k()");
    CHECK_EQ_INT(kind_of(buf, &r), AU_CF_CODE);
    /* every kind the writer can name, the reader reads back */
    for (int k = 0; k < AU_CF_NKINDS; ++k) {
        n = au_cf_head(buf, sizeof buf, 3, (au_cf_kind)k);
        snprintf(buf + n, sizeof buf - (size_t)n, "x");
        CHECK_EQ_INT(kind_of(buf, &r), k);
        CHECK(strcmp(r, "x") == 0);
    }
    CHECK(au_cf_relay(AU_CF_ERROR) == 2 && au_cf_relay(AU_CF_WARNING) == 1 && au_cf_relay(AU_CF_CODE) == 0);
    CHECK(au_cf_relay(AU_CF_ROW) == 0 && au_cf_word(AU_CF_OTHER) == NULL);
}

static void test_errcats(void)
{
    const char *hint;
    CHECK_EQ_INT(au_cf_errcat_of("permission: cuptiX: denied", &hint), AU_CF_E_PERMISSION);
    CHECK(strstr(hint, "NVreg_RestrictProfilingToAdminUsers=0") != NULL);
    CHECK_EQ_INT(au_cf_errcat_of("subscriber: x", &hint), AU_CF_E_SUBSCRIBER);
    CHECK_EQ_INT(au_cf_errcat_of("busy: x", &hint), AU_CF_E_BUSY);
    CHECK(strcmp(hint, "") == 0);
    CHECK_EQ_INT(au_cf_errcat_of("permissions: x", &hint), -1);
    CHECK_EQ_INT(au_cf_errcat_of("", &hint), -1);
    CHECK(strcmp(au_cf_errcat_word(AU_CF_E_UNSUPPORTED), "unsupported") == 0);
}

static void test_env(void)
{
    CHECK(strcmp(au_cf_env_name(AU_ENV_COUNTERS_FILE), "ATOMUTIL_COUNTERS_FILE") == 0);
    CHECK(strcmp(au_cf_env_name(AU_ENV_GRAPHS), "ATOMUTIL_GRAPHS") == 0);
    CHECK(au_cf_env_set_by_cli(AU_ENV_KERNEL_REGEX) && !au_cf_env_set_by_cli(AU_ENV_MAX_RANGES));
    CHECK(au_cf_env_name(AU_ENV_COUNT) == NULL);
    setenv("ATOMUTIL_LAUNCH_SKIP", "", 1);
    CHECK(au_cf_getenv(AU_ENV_LAUNCH_SKIP) == NULL); /* empty is unset */
    setenv("ATOMUTIL_LAUNCH_SKIP", "3", 1);
    CHECK(strcmp(au_cf_getenv(AU_ENV_LAUNCH_SKIP), "3") == 0);
    unsetenv("ATOMUTIL_LAUNCH_SKIP");
}

/* a timing line parsed from its text (after "timing: ") */
static int timing_of(const char *line, au_cf_timing *t)
{
    static char buf[512];
    au_cf_line l;
    snprintf(buf, sizeof buf, "%s", line);
    if (au_cf_classify(buf, 1, &l) != AU_CF_TIMING)
        return -2;
    return au_cf_timing_parse(l.text, t);
}

static void test_timing(void)
{
    au_cf_timing t = {.rec = AU_CF_REC_SETUP}, u;
    t.v[AU_CF_F_SETUP_context] = 7;
    t.v[AU_CF_F_SETUP_s] = 0.25;
    t.v[AU_CF_F_SETUP_beside] = 1;
    char line[512];
    int n = au_cf_timing_format(line, sizeof line, 42, &t);
    CHECK(strcmp(line, "==ATOMUTIL== 42 timing: setup context=7 s=0.250 beside=1\n") == 0);
    CHECK_EQ_INT(n, (int)strlen(line));
    line[n - 1] = '\0';
    CHECK_EQ_INT(timing_of(line, &u), 0);
    CHECK_EQ_INT(u.rec, AU_CF_REC_SETUP);
    CHECK(u.have[AU_CF_F_SETUP_context] && u.have[AU_CF_F_SETUP_s] && u.have[AU_CF_F_SETUP_beside]);
    CHECK(u.v[AU_CF_F_SETUP_s] == 0.25 && u.v[AU_CF_F_SETUP_context] == 7);
    long long c;
    CHECK(au_cf_timing_count(&u, AU_CF_F_SETUP_context, &c) && c == 7);
    /* the text field: written last, only when set */
    t = (au_cf_timing){.rec = AU_CF_REC_MODULES};
    t.v[AU_CF_F_MODULES_kept] = 2;
    t.v[AU_CF_F_MODULES_mb] = 0.25;
    au_cf_timing_format(line, sizeof line, 1, &t);
    CHECK(strcmp(line, "==ATOMUTIL== 1 timing: modules kept=2 mb=0.2 not_kept=0\n") == 0);
    snprintf(t.text, sizeof t.text, "hist");
    n = au_cf_timing_format(line, sizeof line, 1, &t);
    CHECK(strcmp(line, "==ATOMUTIL== 1 timing: modules kept=2 mb=0.2 not_kept=0 filter=hist\n") == 0);
    line[n - 1] = '\0';
    CHECK(timing_of(line, &u) == 0 && strcmp(u.text, "hist") == 0 && u.have[AU_CF_F_MODULES_filter]);
    /* by name, in any order; unknown keys and words without '=' passed over */
    CHECK_EQ_INT(timing_of("==ATOMUTIL== 1 timing: launches  module_loads_s=2 later=x measured=5 junk", &u), 0);
    CHECK(u.v[AU_CF_F_LAUNCHES_module_loads_s] == 2 && !u.have[AU_CF_F_LAUNCHES_callbacks_s]);
    CHECK(au_cf_timing_count(&u, AU_CF_F_LAUNCHES_measured, &c) && c == 5);
    /* a key of another record is unknown here */
    CHECK(timing_of("==ATOMUTIL== 1 timing: launches context=3", &u) == 0 && !u.have[AU_CF_F_SETUP_context]);
    /* not read: an unknown record, a value that is not a finite number */
    CHECK_EQ_INT(timing_of("==ATOMUTIL== 1 timing: lunches measured=5", &u), -1);
    CHECK_EQ_INT(timing_of("==ATOMUTIL== 1 timing: setup s=soon", &u), -1);
    CHECK_EQ_INT(timing_of("==ATOMUTIL== 1 timing: setup s=inf", &u), -1);
    CHECK_EQ_INT(timing_of("==ATOMUTIL== 1 timing: setup s=", &u), -1);
    /* counts: whole numbers >= 0 only */
    CHECK(timing_of("==ATOMUTIL== 1 timing: setup context=1.5 beside=-1", &u) == 0);
    CHECK(!au_cf_timing_count(&u, AU_CF_F_SETUP_context, &c) && !au_cf_timing_count(&u, AU_CF_F_SETUP_beside, &c));
    CHECK(!au_cf_timing_count(&u, AU_CF_F_SETUP_s, &c)); /* not read */
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--count") == 0) { /* counters_file_recorded.sh */
        tally t;
        memset(&t, 0, sizeof t);
        if (au_cf_read(argv[2], (size_t)1 << 30, count, &t) != AU_OK)
            return 1;
        printf("%ld %ld %ld %ld\n", t.kinds[AU_CF_ROW], t.kinds[AU_CF_CODE], t.kinds[AU_CF_GRAPH],
               t.kinds[AU_CF_TIMING]);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: test_counters_file TESTS_DATA_DIR\n");
        return 2;
    }
    test_recorded(argv[1]);
    test_odd_lines();
    test_writer();
    test_errcats();
    test_env();
    test_timing();
    return check_report("test_counters_file");
}
