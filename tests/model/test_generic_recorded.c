/*
 * test_generic_recorded.c - generic atomics as an H100 ran them (tests/data/generic-h100: the
 * validation's generic points profiled live, with the measured add and generic rows): the counters
 * count their wavefronts only, so U has a range, which must hold each point's ground truth U_true
 * (its event times).  Where the instructions had one pass each (lane pattern distinct) or kept the
 * unit saturated (words4_bank without work) the estimate is U_true within 2 points; with 32 passes
 * per instruction and other work the estimate is the range's top (one pass each) and U_true its
 * bottom.  With the kernel's code the launches are class generic at the same U.
 */
#include "atomutil/model.h"
#define CHECK_WANT_INSTR
#define CHECK_WANT_IMPORT
#include "check.h"

#include <string.h>

/* the full kernel's launch of each point in the counters file, U_true from the points' vtime.csv */
static const struct {
    int id;
    const char *point;
    double u_true;
    int estimate; /* 1: the estimate is U_true; 0: the range's bottom is */
} points[] = {
    {2, "generic_distinct", 0.99890, 1},          {5, "generic_distinct_L1", 0.61004, 1},
    {8, "generic_distinct_L2", 0.49700, 1},       {11, "generic_distinct_L4", 0.27432, 1},
    {14, "generic_words4_bank", 1.00041, 1},      {17, "generic_words4_bank_L128", 0.72831, 0},
    {20, "generic_words4_bank_L256", 0.38981, 0}, {23, "generic_words4_bank_L768", 0.13721, 0},
};
#define NPOINTS (sizeof points / sizeof points[0])
#define TOL     0.02 /* 2 points of U */

static void check_point(const au_launch *l, size_t k)
{
    const au_result *x = &l->res;
    double u = points[k].u_true;
    CHECK_EQ_INT(l->id, points[k].id);
    CHECK(l->ctr.jobs == 0 && l->ctr.wavefronts > 0);
    CHECK((x->flags & AU_F_UNPRICED_WAVEFRONTS) && !(x->flags & AU_F_UNUSABLE));
    CHECK(x->verdict != AU_VERDICT_UNKNOWN);
    if (!(x->util_lo - TOL <= u && u <= x->util_hi + TOL))
        fprintf(stderr, "%s: U_true %.4f outside %.4f..%.4f\n", points[k].point, u, x->util_lo, x->util_hi);
    CHECK(x->util_lo - TOL <= u && u <= x->util_hi + TOL);
    CHECK_NEAR(points[k].estimate ? x->util : x->util_lo, u, TOL);
}

int main(int argc, char **argv)
{
    au_report rep;
    au_table *t;
    int rc = check_load("test_generic_recorded", argc, argv, &rep, &t);
    if (rc)
        return rc;
    CHECK_EQ_INT(rep.count, NPOINTS);
    if (rep.count != NPOINTS)
        return check_report("test_generic_recorded");
    CHECK(au_table_has_family(t, "generic"));
    CHECK_EQ_INT(au_report_eval(&rep, t, "add", NULL), AU_OK);
    au_instr code[1] = {check_instr("ATOM.E.ADD.STRONG.SM", 0x400)};
    for (size_t k = 0; k < NPOINTS; ++k) {
        au_launch *l = &rep.launches[k];
        check_point(l, k);
        const double util = l->res.util;
        CHECK_EQ_INT(check_eval_code(l, t, code, 1, &rep.thr, rep.busy), AU_OK);
        CHECK(l->ops && strcmp(l->ops->classes, "generic 100%") == 0);
        CHECK((l->res.flags & AU_F_OPCODES) && !(l->res.flags & AU_F_UNKNOWN_OPCODE));
        CHECK_NEAR(l->res.util, util, 1e-12);
    }
    au_report_free(&rep);
    au_table_free(t);
    return check_report("test_generic_recorded");
}
