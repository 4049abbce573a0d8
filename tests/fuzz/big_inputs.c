/*
 * big_inputs.c - the readers on large, valid inputs that the fuzzers (16 KB inputs) cannot reach:
 * a table of 200,000 distinct queue lengths n, one of 100,000 families, and an export of 100,000
 * launches.  Reading was quadratic in the number of n values and of families (a 50 MB table took
 * half an hour to an hour); this test has a CTest timeout far below what a quadratic reader needs
 * and far above what a linear one needs, under valgrind included.
 *   test_big_inputs        exit 0 when every input loaded and checked out
 */
#include "atomutil/model.h"
#include "atomutil/util.h"
#include "ncu_import.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HEAD                                                                                 \
    "# atomutil-table v1\n# gpu_name: Big GPU\n# compute_capability: 9.0\n# sm_count: 132\n" \
    "# max_warps_per_sm: 1000000\n# method: steady\n"                                        \
    "family,n,a,c,service_cycles,min_cycles,max_cycles,mad_cycles\n"

static int failures;

static void fail(const char *what)
{
    fprintf(stderr, "FAIL: %s: %s\n", what, au_last_error());
    ++failures;
}

/* A growable text buffer. */
typedef struct {
    char *s;
    size_t len, cap;
} text;

static void put(text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *b, const char *fmt, ...)
{
    if (b->cap - b->len < 256) {
        b->cap = b->cap ? b->cap * 2 : (size_t)1 << 20;
        if (!(b->s = realloc(b->s, b->cap))) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    va_list ap;
    va_start(ap, fmt);
    b->len += (size_t)vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
}

/* A valid table of `families` families (add first) with n = 1..nmax, a = 1, c in {0, n}. */
static void table_case(const char *name, long families, long nmax)
{
    text b = {NULL, 0, 0};
    put(&b, "%s", HEAD);
    for (long f = 0; f < families; ++f) {
        char fam[32];
        if (f == 0)
            snprintf(fam, sizeof fam, "add");
        else
            snprintf(fam, sizeof fam, "f%ld", f);
        for (long n = 1; n <= nmax; ++n)
            put(&b, "%s,%ld,1,0,2,1,3,0\n%s,%ld,1,%ld,2,1,3,0\n", fam, n, fam, n, n);
    }
    double t0 = au_monotonic_s();
    au_table *t = NULL;
    if (au_table_parse(name, b.s, b.len, &t) != AU_OK) {
        fail(name);
    } else {
        double s = 0;
        if (au_table_family_count(t) != (size_t)families)
            fail("family count");
        if (au_table_interp(t, "add", nmax / 2.0, 1, 0, &s, NULL) != AU_OK || s != 2)
            fail("interpolation in a big table");
        au_table_free(t);
    }
    printf("%s: %zu bytes, %.2f s\n", name, b.len, au_monotonic_s() - t0);
    free(b.s);
}

/* An export of `launches` launches, one row each: the four required columns. */
static void export_case(const char *name, long launches)
{
    text b = {NULL, 0, 0};
    put(&b, "%s", "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n");
    for (long i = 0; i < launches; ++i)
        put(&b, "\"%ld\",\"k%ld\",\"sm__cycles_active.avg\",\"1,000\"\n", i, i % 7);
    double t0 = au_monotonic_s();
    au_report r;
    au_report_init(&r);
    if (au_ncu_import_buffer(name, b.s, b.len, &r) != AU_OK)
        fail(name);
    else if (r.count != (size_t)launches || r.launches[launches - 1].ctr.active_cycles != 1000)
        fail("launch count or value of a big export");
    au_report_free(&r);
    printf("%s: %zu bytes, %.2f s\n", name, b.len, au_monotonic_s() - t0);
    free(b.s);
}

int main(void)
{
    table_case("n-200000.csv", 1, 200000);
    table_case("families-100000.csv", 100000, 1);
    export_case("launches-100000.csv", 100000);
    if (failures)
        return 1;
    printf("big inputs: all loaded\n");
    return 0;
}
