/*
 * test_plan.c - the calibration sweep plan without a GPU: grid sizes and c sets per family, the
 * lanes that give a wavefronts, the even spread of CAS warps, the longest-processing-time
 * schedule of work items onto SMs, and the dsmem (cluster) families' descriptors and grid.
 */
#include "cal.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static size_t count_family(const au_cal_plan *p, const char *name)
{
    size_t k = 0;
    for (size_t i = 0; i < p->npts; ++i)
        k += strcmp(au_cal_families[p->pts[i].family].name, name) == 0;
    return k;
}

static void test_c_values(void)
{
    int cv[65];
    CHECK_EQ_INT(au_cal_c_values(64, AU_CAL_CGRID_FULL, 0, cv), 65);
    CHECK_EQ_INT(cv[0], 0);
    CHECK_EQ_INT(cv[64], 64);
    CHECK_EQ_INT(au_cal_c_values(64, AU_CAL_CGRID_SPARSE, 0, cv), 5);
    CHECK(cv[0] == 0 && cv[1] == 16 && cv[2] == 32 && cv[3] == 48 && cv[4] == 64);
    CHECK_EQ_INT(au_cal_c_values(1, AU_CAL_CGRID_SPARSE, 0, cv), 2); /* 0 and 1 only */
    CHECK_EQ_INT(au_cal_c_values(2, AU_CAL_CGRID_SPARSE, 0, cv), 3); /* 0, 1, 2 */
    CHECK_EQ_INT(au_cal_c_values(7, AU_CAL_CGRID_ENDS, 0, cv), 2);
    CHECK(cv[0] == 0 && cv[1] == 7);
    CHECK_EQ_INT(au_cal_c_values(8, AU_CAL_CGRID_FULL, 1, cv), 3); /* quick: 0, n/2, n */
    CHECK(cv[0] == 0 && cv[1] == 4 && cv[2] == 8);
    /* every sparse set: sorted, unique, holds 0 and n */
    for (int n = 1; n <= 64; ++n) {
        int k = au_cal_c_values(n, AU_CAL_CGRID_SPARSE, 0, cv);
        CHECK(k >= 2 && k <= 5 && cv[0] == 0 && cv[k - 1] == n);
        for (int i = 1; i < k; ++i)
            CHECK(cv[i] > cv[i - 1]);
    }
}

static void test_full_plan(void)
{
    unsigned fams;
    au_cal_plan p;
    CHECK_EQ_INT(au_cal_parse_families("all", &fams), AU_OK);
    const au_cal_plan_opts o = {64, fams, 0, AU_CAL_CGRID_AUTO, 256, 0};
    CHECK_EQ_INT(au_cal_plan_build(&o, &p), AU_OK);
    /* add: n = 1..64, a = 1..32, c = 0..n: 32 * sum(n + 1) = 32 * 2144 */
    CHECK_EQ_INT(count_family(&p, "add"), 68608);
    CHECK_EQ_INT(count_family(&p, "cas"), 64 * 32 * 2);
    CHECK_EQ_INT(count_family(&p, "exch"), 64 * 32 * 2); /* c = 0 and n only */
    /* sparse families: (2 + 1 + 4 * 62) c values over n = 1, 2, 3..64 minus duplicates */
    int cv[65];
    size_t sparse = 0;
    for (int n = 1; n <= 64; ++n)
        sparse += (size_t)au_cal_c_values(n, AU_CAL_CGRID_SPARSE, 0, cv) * 32;
    CHECK_EQ_INT(count_family(&p, "popc_inc"), sparse);
    CHECK_EQ_INT(count_family(&p, "cas64"), sparse);
    /* the CAS loops reach a = 1 (32-bit) and a = 1, 2 (64-bit) only, with every c */
    CHECK_EQ_INT(count_family(&p, "cast_spin"), 2144);
    CHECK_EQ_INT(count_family(&p, "cast_spin64"), 2 * 2144);
    /* dsmem: n = 1..32 (one block per SM), a = 1, 2, 4, 8, 16, 32, c = 0 */
    CHECK_EQ_INT(count_family(&p, "dsmem_local"), 32 * 6);
    CHECK_EQ_INT(count_family(&p, "dsmem_remote_c16"), 32 * 6);
    CHECK_EQ_INT(count_family(&p, "dsmem_hot_c8"), 32 * 6);
    /* grouped by family, the ATOMS families first, every point consistent */
    const size_t na = au_cal_plan_atoms(&p);
    CHECK_EQ_INT(p.npts - na, 9 * 32 * 6);
    for (size_t i = 0; i < p.npts; ++i) {
        const au_cal_point *q = &p.pts[i];
        CHECK(q->n >= 1 && q->n <= 64 && q->c >= 0 && q->c <= q->n);
        const au_cal_family *f = &au_cal_families[q->family];
        CHECK(q->a >= 1 && q->a <= f->max_a && q->pattern == f->pattern);
        CHECK(q->lanes_op == au_cal_family_lanes(f, q->a) && q->lanes_op <= 32);
        CHECK(q->est_cycles > 0);
        CHECK_EQ_INT(au_cal_is_dsmem(f), i >= na);
        if (au_cal_is_dsmem(f))
            CHECK(q->n <= 32 && q->c == 0 && 32 % q->a == 0 && q->lanes_op == 32 && q->lanes_cas == 0);
        else
            CHECK_EQ_INT(q->lanes_cas, q->a);
        if (i)
            CHECK(q->family >= p.pts[i - 1].family);
    }
    fprintf(stderr, "full default plan: %zu points\n", p.npts);
    au_cal_plan_free(&p);
}

static void test_quick_plan(void)
{
    unsigned fams;
    au_cal_plan p;
    CHECK_EQ_INT(au_cal_parse_families("add,cas", &fams), AU_OK);
    const au_cal_plan_opts o = {64, fams, 1, AU_CAL_CGRID_AUTO, 256, 0};
    CHECK_EQ_INT(au_cal_plan_build(&o, &p), AU_OK);
    /* n in 1,2,4,8,16,32,48,64; a in 1,2,4,8,16,32; add c in {0, n/2, n}, cas c in {0, n} */
    CHECK_EQ_INT(count_family(&p, "add"), (1 * 2 + 7 * 3) * 6); /* n=1: c 0,1 (n/2 rounds to 1) */
    CHECK_EQ_INT(count_family(&p, "cas"), 8 * 6 * 2);
    CHECK_EQ_INT(au_cal_plan_atoms(&p), p.npts); /* no dsmem family asked for */
    au_cal_plan_free(&p);
    /* a device with 48 warps per SM: the largest n is 48, never more */
    const au_cal_plan_opts o48 = {48, fams, 1, AU_CAL_CGRID_AUTO, 256, 0};
    CHECK_EQ_INT(au_cal_plan_build(&o48, &p), AU_OK);
    int maxn = 0;
    for (size_t i = 0; i < p.npts; ++i)
        maxn = p.pts[i].n > maxn ? p.pts[i].n : maxn;
    CHECK_EQ_INT(maxn, 48);
    au_cal_plan_free(&p);
    /* --c-grid full: every family gets c = 0..n, except cas (c means nothing there) */
    CHECK_EQ_INT(au_cal_parse_families("exch,cas", &fams), AU_OK);
    const au_cal_plan_opts full = {8, fams, 0, AU_CAL_CGRID_FULL, 256, 0};
    CHECK_EQ_INT(au_cal_plan_build(&full, &p), AU_OK);
    CHECK_EQ_INT(count_family(&p, "exch"), 32 * (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9));
    CHECK_EQ_INT(count_family(&p, "cas"), 32 * 8 * 2);
    au_cal_plan_free(&p);
    const au_cal_plan_opts bad = {0, fams, 1, AU_CAL_CGRID_AUTO, 256, 0};
    CHECK(au_cal_plan_build(&bad, &p) == AU_E_INVAL);
}

static void test_points(void)
{
    au_cal_point pt;
    const int add = au_cal_family_index("add"), cs = au_cal_family_index("cast_spin"),
              cs64 = au_cal_family_index("cast_spin64"), cas = au_cal_family_index("cas");
    CHECK_EQ_INT(au_cal_make_point(add, 32, 8, 4, 256, -1, &pt), AU_OK);
    CHECK(pt.lanes_op == 8 && pt.lanes_cas == 8 && pt.n == 32 && pt.c == 4 && pt.pattern == AU_CAL_PAT_BANK);
    CHECK(au_cal_make_point(add, 4, 33, 0, 256, -1, &pt) == AU_E_INVAL);
    CHECK(au_cal_make_point(add, 4, 2, 5, 256, -1, &pt) == AU_E_INVAL);
    CHECK(au_cal_make_point(-1, 4, 2, 0, 256, -1, &pt) == AU_E_INVAL);
    /* CAS loops: a full conflict-free pass of lanes per serialized pass */
    CHECK_EQ_INT(au_cal_make_point(cs, 4, 1, 0, 256, -1, &pt), AU_OK);
    CHECK(pt.lanes_op == 32 && pt.pattern == AU_CAL_PAT_DISTINCT);
    CHECK(au_cal_make_point(cs, 4, 2, 0, 256, -1, &pt) == AU_E_INVAL);
    CHECK_EQ_INT(au_cal_make_point(cs64, 4, 1, 0, 256, -1, &pt), AU_OK);
    CHECK_EQ_INT(pt.lanes_op, 16);
    CHECK_EQ_INT(au_cal_make_point(cs64, 4, 2, 1, 256, -1, &pt), AU_OK);
    CHECK(pt.lanes_op == 32 && pt.lanes_cas == 2);
    /* a check pattern: a counts lanes, up to 32, for any family */
    CHECK_EQ_INT(au_cal_make_point(cs, 4, 32, 0, 256, AU_CAL_PAT_WORD, &pt), AU_OK);
    CHECK(pt.lanes_op == 32 && pt.pattern == AU_CAL_PAT_WORD);
    /* counter wavefronts of one --point launch (2 passes x n warps x 256 jobs) */
    au_cal_make_point(add, 4, 8, 0, 256, -1, &pt);
    CHECK_EQ_INT(au_cal_point_wavefronts(&pt, 256), 2L * 256 * 4 * 8);
    au_cal_make_point(cas, 4, 8, 0, 256, -1, &pt);
    CHECK_EQ_INT(au_cal_point_wavefronts(&pt, 256), 2L * 256 * 4 * 8 * 2); /* CAS: 2 per pass */
    au_cal_make_point(add, 8, 4, 4, 256, -1, &pt);
    CHECK_EQ_INT(au_cal_point_wavefronts(&pt, 256), 2L * 256 * (4 * 4 + 4 * 4 * 2));
    au_cal_make_point(add, 4, 8, 0, 256, AU_CAL_PAT_WORD, &pt);
    CHECK_EQ_INT(au_cal_point_wavefronts(&pt, 256), -1);
    /* cost rises with load and serialization */
    au_cal_point lo, hi;
    au_cal_make_point(add, 8, 1, 0, 256, -1, &lo);
    au_cal_make_point(add, 64, 32, 64, 256, -1, &hi);
    CHECK(hi.est_cycles > lo.est_cycles);
}

/* The dsmem families: after every ATOMS family, their descriptors, their own point rules and
 * grid, and the model library's name rule agreeing with the descriptors. */
static void test_dsmem(void)
{
    /* calibrate's descriptors are the registry's families, in its order (the model reads the
     * same registry); the family masks are 32 bits wide */
    size_t nreg;
    const au_family_def *reg = au_families(&nreg);
    CHECK_EQ_INT(au_cal_nfamilies, (int)nreg);
    CHECK(au_cal_nfamilies <= 32 && au_cal_natoms >= 1);
    for (int k = 0; k < au_cal_nfamilies && k < (int)nreg; ++k) {
        CHECK(strcmp(au_cal_families[k].name, reg[k].name) == 0 && strcmp(au_cal_families[k].sass, reg[k].opcode) == 0);
        CHECK_EQ_INT(au_cal_families[k].wf_per_way, reg[k].wf_per_pass);
        CHECK_EQ_INT(au_cal_families[k].cluster, reg[k].cluster);
        CHECK_EQ_INT(k >= au_cal_natoms, reg[k].kind == AU_KIND_DSMEM);
    }
    unsigned all, dm = au_cal_dsmem_mask();
    CHECK_EQ_INT(au_cal_parse_families("all", &all), AU_OK);
    CHECK((all & dm) == dm && dm != 0);
    static const struct {
        const char *name;
        int cluster, shift, row;
    } want[] = {{"dsmem_local", 2, 0, 0},     {"dsmem_remote", 2, 1, 0},      {"dsmem_remote_c4", 4, 1, 0},
                {"dsmem_remote_c8", 8, 1, 0}, {"dsmem_remote_c16", 16, 1, 0}, {"dsmem_remote_row", 2, 1, 1},
                {"dsmem_hot", 2, -1, 0},      {"dsmem_hot_c4", 4, -1, 0},     {"dsmem_hot_c8", 8, -1, 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const int k = au_cal_family_index(want[i].name);
        CHECK(k >= au_cal_natoms && (dm & (1u << k)));
        if (k < 0)
            continue;
        const au_cal_family *f = &au_cal_families[k];
        CHECK(f->cluster == want[i].cluster && f->shift == want[i].shift && f->row == want[i].row);
        CHECK(strcmp(f->sass, "ATOM.E.ADD") == 0 && f->pattern == AU_CAL_PAT_SPREAD);
        CHECK(f->cgrid == AU_CAL_CGRID_ZERO && f->max_a == 32);
    }
    for (int k = 0; k < au_cal_nfamilies; ++k) {
        const au_cal_family *f = &au_cal_families[k];
        CHECK_EQ_INT(au_cal_is_dsmem(f), k >= au_cal_natoms);
        CHECK_EQ_INT(au_cal_is_dsmem(f), au_family_is_dsmem(f->name));
    }
    int cv[65];
    CHECK_EQ_INT(au_cal_c_values(32, AU_CAL_CGRID_ZERO, 0, cv), 1);
    CHECK_EQ_INT(cv[0], 0);

    au_cal_point pt;
    const int loc = au_cal_family_index("dsmem_local"), rem = au_cal_family_index("dsmem_remote");
    CHECK_EQ_INT(au_cal_make_point(rem, 32, 8, 0, 1024, -1, &pt), AU_OK);
    CHECK(pt.lanes_op == 32 && pt.lanes_cas == 0 && pt.pattern == AU_CAL_PAT_SPREAD);
    CHECK_EQ_INT(au_cal_point_wavefronts(&pt, 1024), -1);                 /* no ATOMS wavefronts to predict */
    CHECK(au_cal_make_point(rem, 32, 3, 0, 1024, -1, &pt) == AU_E_INVAL); /* 32 % 3 != 0 */
    CHECK(au_cal_make_point(rem, 33, 1, 0, 1024, -1, &pt) == AU_E_INVAL); /* one block: <= 32 */
    CHECK(au_cal_make_point(rem, 8, 1, 8, 1024, -1, &pt) == AU_E_INVAL);  /* c = 0 only */
    CHECK(au_cal_make_point(rem, 8, 1, 0, 1024, AU_CAL_PAT_WORD, &pt) == AU_E_INVAL);
    /* the estimate: a remote job costs more than a local one, more lanes on a word more */
    au_cal_point l1, r1, r32;
    au_cal_make_point(loc, 32, 1, 0, 1024, -1, &l1);
    au_cal_make_point(rem, 32, 1, 0, 1024, -1, &r1);
    au_cal_make_point(rem, 32, 32, 0, 1024, -1, &r32);
    CHECK(l1.est_cycles < r1.est_cycles && r1.est_cycles < r32.est_cycles);

    /* quick: n 1, 2, 4, 8, 16, 32 whatever the SM holds beyond 32; an SM of 24 warps ends at 24 */
    unsigned fams;
    au_cal_plan p;
    CHECK_EQ_INT(au_cal_parse_families("add,dsmem_local,dsmem_remote_c8", &fams), AU_OK);
    const au_cal_plan_opts q = {64, fams, 1, AU_CAL_CGRID_FULL, 2048, 1024};
    CHECK_EQ_INT(au_cal_plan_build(&q, &p), AU_OK);
    CHECK_EQ_INT(count_family(&p, "dsmem_local"), 6 * 6);
    CHECK_EQ_INT(count_family(&p, "dsmem_remote_c8"), 6 * 6);
    CHECK_EQ_INT(au_cal_plan_atoms(&p), count_family(&p, "add"));
    int maxn = 0;
    for (size_t i = au_cal_plan_atoms(&p); i < p.npts; ++i)
        maxn = p.pts[i].n > maxn ? p.pts[i].n : maxn;
    CHECK_EQ_INT(maxn, 32);
    au_cal_plan_free(&p);
    const au_cal_plan_opts q24 = {24, fams, 0, AU_CAL_CGRID_AUTO, 2048, 1024};
    CHECK_EQ_INT(au_cal_plan_build(&q24, &p), AU_OK);
    CHECK_EQ_INT(count_family(&p, "dsmem_local"), 24 * 6);
    au_cal_plan_free(&p);
}

static void test_cas_spread(void)
{
    for (int n = 1; n <= 64; ++n)
        for (int c = 0; c <= n; ++c) {
            int k = 0, sub[4] = {0, 0, 0, 0};
            for (int w = 0; w < n; ++w)
                if (au_cal_is_cas_warp(w, n, c)) {
                    ++k;
                    ++sub[w % 4];
                }
            CHECK_EQ_INT(k, c);
            if (n % 8 == 0 && c == n / 2) /* half the warps CAS: every sub-partition gets its share */
                for (int s = 0; s < 4; ++s)
                    CHECK_EQ_INT(sub[s], n / 8);
        }
}

static void test_schedule(void)
{
    enum { N = 1000, NSM = 7 };
    double cost[N], load[NSM] = {0}, total = 0, maxc = 0;
    int order[N], first[NSM + 1], seen[N] = {0};
    srand(1);
    for (int i = 0; i < N; ++i) {
        cost[i] = 1 + rand() % 1000;
        total += cost[i];
        maxc = cost[i] > maxc ? cost[i] : maxc;
    }
    const double worst = au_cal_schedule(cost, N, NSM, order, first);
    CHECK_EQ_INT(first[0], 0);
    CHECK_EQ_INT(first[NSM], N);
    for (int s = 0; s < NSM; ++s) {
        CHECK(first[s + 1] >= first[s]);
        for (int j = first[s]; j < first[s + 1]; ++j) {
            ++seen[order[j]];
            load[s] += cost[order[j]];
        }
    }
    for (int i = 0; i < N; ++i)
        CHECK_EQ_INT(seen[i], 1);
    double mx = 0;
    for (int s = 0; s < NSM; ++s)
        mx = load[s] > mx ? load[s] : mx;
    CHECK_NEAR(worst, mx, 1e-9);
    CHECK(worst <= total / NSM + maxc); /* the LPT bound */
    /* five repetitions of one point go to five different SMs */
    double same[5] = {10, 10, 10, 10, 10};
    int o5[5], f5[NSM + 1];
    au_cal_schedule(same, 5, NSM, o5, f5);
    for (int s = 0; s < NSM; ++s)
        CHECK(f5[s + 1] - f5[s] <= 1);
}

int main(void)
{
    test_c_values();
    test_full_plan();
    test_quick_plan();
    test_points();
    test_dsmem();
    test_cas_spread();
    test_schedule();
    return check_report("test_calibrate_plan");
}
