/*
 * test_counters_file.c - the counters-file reader and writer (profile/import/counters_file.h) on
 * recorded counters files and on odd lines.
 */
#include "atomutil/model.h"
#include "check.h"
#include "counters_file.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    long kinds[AU_CF_TIMING + 1];
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
    CHECK_EQ_INT(t.kinds[AU_CF_DIAG] + t.kinds[AU_CF_TIMING], 2);
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
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 info: timing: setup 0.1 s (context 1)", &r), AU_CF_TIMING);
    CHECK(strncmp(r, "setup", 5) == 0);
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 info: timing:", &r), AU_CF_DIAG); /* no text: a plain info */
    CHECK_EQ_INT(kind_of("==ATOMUTIL== 12 error: permission: x", &r), AU_CF_DIAG);
    CHECK(strcmp(r, "error: permission: x") == 0);
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
    int n = au_cf_head(buf, sizeof buf, 4242, "code");
    CHECK(strcmp(buf, "==ATOMUTIL== 4242 code: ") == 0);
    CHECK_EQ_INT(n, (int)strlen(buf));
    CHECK_EQ_INT(au_cf_head(small, sizeof small, 1, "warning"), 24); /* snprintf's length */
    CHECK(strlen(small) == 7);
    const char *r;
    snprintf(buf + n, sizeof buf - (size_t)n, "7 _Z1kv k()");
    CHECK_EQ_INT(kind_of(buf, &r), AU_CF_CODE);
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
    return check_report("test_counters_file");
}
