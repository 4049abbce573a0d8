/*
 * check.h - the few assertion macros of atomutil's C tests.  A failed check prints file:line and
 * the values, and makes the test exit non-zero at the end (all checks still run).
 */
#ifndef ATOMUTIL_TEST_CHECK_H
#define ATOMUTIL_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        ++check_count;                                                               \
        if (!(cond)) {                                                               \
            ++check_failures;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_NEAR(got, want, tol)                                                                      \
    do {                                                                                                \
        double g_ = (got), w_ = (want);                                                                 \
        ++check_count;                                                                                  \
        if (!(fabs(g_ - w_) <= (tol))) {                                                                \
            ++check_failures;                                                                           \
            fprintf(stderr, "%s:%d: %s = %.9g, want %.9g (tol %g)\n", __FILE__, __LINE__, #got, g_, w_, \
                    (double)(tol));                                                                     \
        }                                                                                               \
    } while (0)

#define CHECK_EQ_INT(got, want)                                                                 \
    do {                                                                                        \
        long long g_ = (got), w_ = (want);                                                      \
        ++check_count;                                                                          \
        if (g_ != w_) {                                                                         \
            ++check_failures;                                                                   \
            fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
        }                                                                                       \
    } while (0)

static int check_report(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#ifdef CHECK_WANT_INSTR
#include "atomutil/model.h"
#include <stdlib.h>
#include <string.h>
/* One instruction of a kernel's listing for the opcode tests: function _Z1kv at pc. */
static au_instr check_instr(const char *opcode, unsigned pc)
{
    au_instr x;
    memset(&x, 0, sizeof x);
    strcpy(x.function, "_Z1kv");
    strcpy(x.opcode, opcode);
    x.pc = pc;
    strcpy(x.source, "k.cu:7");
    return x;
}

/* What an evaluation of launch l allocated (its opcode classes and its advice), freed. */
static inline void check_launch_done(au_launch *l)
{
    au_opsplit_free(l->ops);
    free(l->adv);
    l->ops = NULL;
    l->adv = NULL;
}

/* Launch l evaluated (au_launch_eval, family add) with the kernel code code[0..n) attached: its
 * counters priced by the code where the code can price them.  The tests reuse one launch for
 * several pricings of its counters: each is a fresh launch's one evaluation (evals reset). */
static int check_eval_code(au_launch *l, const au_table *t, const au_instr *code, size_t n, const au_thresholds *thr,
                           au_busy_mode busy)
{
    au_launch_code c = {code, n, NULL, 0};
    l->code = &c;
    l->evals = 0;
    return au_launch_eval(l, t, "add", thr, busy);
}
#endif

#ifdef CHECK_WANT_IMPORT
#include "atomutil/model.h"
#include "ncu_import.h"
/* The start of a test on a recorded run, main(argc, argv) with EXPORT.csv TABLE.csv: *rep imported
 * (initialized in any case), *t loaded.  0, or the exit status of a test that cannot run: 2 for
 * its usage, 1 when the files give no launch or no table. */
static int check_load(const char *name, int argc, char **argv, au_report *rep, au_table **t)
{
    au_report_init(rep);
    *t = NULL;
    if (argc != 3) {
        fprintf(stderr, "usage: %s EXPORT.csv TABLE.csv\n", name);
        return 2;
    }
    CHECK_EQ_INT(au_ncu_import(argv[1], rep), AU_OK);
    CHECK_EQ_INT(au_table_load(argv[2], t), AU_OK);
    if (!*t || rep->count == 0) {
        fprintf(stderr, "%s: %s\n", name, au_last_error());
        return 1;
    }
    return 0;
}
#endif

#endif
