/*
 * test_loops.c - pricing of CAS-loop attempts (ATOMS.CAST.SPIN*, docs/model.md "CAS loops"):
 * au_loop_service scales the table's uncontended full-warp attempt by the attempt's wavefronts,
 * its load's included; au_loop_loads finds the loads' wavefronts exactly when the loops own every
 * shared load and store, and gives a point estimate with bounds otherwise; the single-family and
 * the opcode-class paths use them, flag estimates (with a U range) and missing load counters.
 * A small table built in memory: add (required) and cast_spin, S(64, 1, 0) = 3.06 cycles for
 * the 3 wavefronts of an uncontended 32-bit attempt, and cast_spin64 up to a = 2 (6 wavefronts,
 * 6.12 cycles).
 */
#include "atomutil/model.h"
#define CHECK_WANT_INSTR
#include "check.h"
#include "mem_table.h"

#include <stdlib.h>
#include <string.h>

static const au_thresholds thr = {0.80, 0.40};

static au_table *make_table(void)
{
    au_table *t = mem_table_new();
    if (!t)
        return NULL;
    for (int n = 1; n <= 64; n += 63) {
        mem_put(t, "add", n, 1, 0, n == 1 ? 10 : 1.02);
        mem_put(t, "add", n, 1, n, n == 1 ? 20 : 2.04);
        mem_put(t, "cast_spin", n, 1, 0, n == 1 ? 200 : 3.06);
        mem_put(t, "cast_spin", n, 1, n, n == 1 ? 200 : 3.06);
        for (int a = 1; a <= 2; ++a) {
            mem_put(t, "cast_spin64", n, a, 0, n == 1 ? 100 * a : 3.06 * a);
            mem_put(t, "cast_spin64", n, a, n, n == 1 ? 100 * a : 3.06 * a);
        }
    }
    if (au_table_finalize(t) != AU_OK) {
        fprintf(stderr, "finalize: %s\n", au_last_error());
        au_table_free(t);
        return NULL;
    }
    return t;
}

static void test_service(const au_table *t)
{
    double s;
    au_flags fl = 0;
    CHECK(au_family_is_cas_loop("cast_spin") && au_family_is_cas_loop("cast_spin64"));
    CHECK(!au_family_is_cas_loop("cas") && !au_family_is_cas_loop("cas64") && !au_family_is_cas_loop("add"));
    CHECK_EQ_INT(au_table_a_max(t, "cast_spin64"), 2);
    CHECK_EQ_INT(au_table_a_max(t, "nope"), 0);
    /* the calibrated attempt itself: 3 wavefronts */
    CHECK_EQ_INT(au_loop_service(t, "cast_spin", 64, 3, &s, &fl), AU_OK);
    CHECK_NEAR(s, 3.06, 1e-12);
    /* 4 lanes per bank: the CAST's 2 wavefronts and a 4-way load of 2.5 on average -> 4.5 */
    CHECK_EQ_INT(au_loop_service(t, "cast_spin", 64, 4.5, &s, &fl), AU_OK);
    CHECK_NEAR(s, 3.06 * 1.5, 1e-12);
    /* 64-bit: scaled from a = 2 (6 wavefronts) */
    CHECK_EQ_INT(au_loop_service(t, "cast_spin64", 64, 10.88, &s, &fl), AU_OK);
    CHECK_NEAR(s, 6.12 * 10.88 / 6, 1e-12);
    CHECK(au_loop_service(t, "nope", 64, 3, &s, &fl) != AU_OK);
    CHECK(au_loop_service(t, "cast_spin", 64, -1, &s, &fl) != AU_OK);
}

static au_counters loop_counters(double J, double atom_wf, double shared_wf, double ld, double st)
{
    au_counters c;
    memset(&c, 0, sizeof c);
    c.jobs = c.cas_jobs = J;
    c.wavefronts = atom_wf;
    c.active_cycles = 1e5;
    c.warps = 60;
    c.shared_wavefronts = shared_wf;
    c.ld_inst = ld;
    c.st_inst = st;
    c.have = AU_C_REQUIRED | AU_C_LOOP_LOADS;
    return c;
}

static void test_loads(void)
{
    double w, lo, hi;
    /* the loops own every load: exact */
    au_counters c = loop_counters(1000, 2000, 3500, 1000, 0);
    CHECK_EQ_INT(au_loop_loads(&c, 1000, &w, &lo, &hi), 1);
    CHECK_NEAR(w, 1500, 1e-9);
    CHECK(lo == w && hi == w);
    /* other loads and stores: 2000 instructions, 1000 of them the loops' */
    c = loop_counters(1000, 2000, 5500, 1500, 500);
    CHECK_EQ_INT(au_loop_loads(&c, 1000, &w, &lo, &hi), 2);
    CHECK_NEAR(w, 3500.0 * 1000 / 2000, 1e-9); /* W_o shared by instruction */
    CHECK_NEAR(lo, 1000, 1e-9);
    CHECK_NEAR(hi, 3500, 1e-9);
    /* other instructions so many that the share falls below the lower bound */
    c = loop_counters(1000, 2000, 2000 + 1500, 1000, 5000);
    CHECK_EQ_INT(au_loop_loads(&c, 1000, &w, &lo, &hi), 2);
    CHECK_NEAR(w, 1000, 1e-9);
    CHECK_NEAR(hi, 1500, 1e-9);
    /* no loop jobs: nothing to price */
    CHECK_EQ_INT(au_loop_loads(&c, 0, &w, &lo, &hi), 0);
    CHECK(w == 0);
    /* an older export without the load counters */
    c.have &= ~AU_C_LD_INST;
    CHECK_EQ_INT(au_loop_loads(&c, 1000, &w, &lo, &hi), 0);
    CHECK(w < 0 && lo < 0 && hi < 0);
}

static void test_family_path(const au_table *t)
{
    au_result r;
    /* 132 SMs x 1000 attempts, 2 atomic and 1.5 load wavefronts each: S = 3.06 * 3.5 / 3 */
    au_counters c = loop_counters(132e3, 264e3, 462e3, 132e3, 0);
    CHECK_EQ_INT(au_model_eval(t, "cast_spin", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.service, 3.06 * 3.5 / 3, 1e-9);
    CHECK_NEAR(r.util, 1000 * 3.06 * 3.5 / 3 / 1e5, 1e-9);
    CHECK(!(r.flags & (AU_F_LOOP_LOADS_ESTIMATED | AU_F_LOOP_LOADS_UNKNOWN)));
    CHECK(r.util_lo == 0 && r.util_hi == 0);
    /* other shared traffic: a range around the point estimate */
    c = loop_counters(132e3, 264e3, 264e3 + 462e3, 264e3, 0);
    CHECK_EQ_INT(au_model_eval(t, "cast_spin", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.flags & AU_F_LOOP_LOADS_ESTIMATED);
    CHECK(r.util_lo > 0 && r.util_lo < r.util && r.util < r.util_hi);
    /* load wavefronts per attempt: lower bound 1, estimate 462/264 = 1.75 (by instruction), upper
     * bound 462/132 = 3.5 */
    CHECK_NEAR(r.util_lo, 1000 * 3.06 * 3 / 3 / 1e5, 1e-9);
    CHECK_NEAR(r.util, 1000 * 3.06 * 3.75 / 3 / 1e5, 1e-9);
    CHECK_NEAR(r.util_hi, 1000 * 3.06 * 5.5 / 3 / 1e5, 1e-9);
    /* no load counters: the table at a from the atomic wavefronts, flagged */
    c.have &= ~AU_C_LOOP_LOADS;
    CHECK_EQ_INT(au_model_eval(t, "cast_spin", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.flags & AU_F_LOOP_LOADS_UNKNOWN);
    CHECK_NEAR(r.service, 3.06, 1e-9);
    /* non-loop families never carry the loop flags */
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(!(r.flags & (AU_F_LOOP_LOADS_ESTIMATED | AU_F_LOOP_LOADS_UNKNOWN)));
    char buf[256];
    au_flags_string(AU_F_LOOP_LOADS_ESTIMATED | AU_F_LOOP_LOADS_UNKNOWN, buf, sizeof buf);
    CHECK(strcmp(buf, "loop_loads_estimated,loop_loads_unknown") == 0);
}

#define ins check_instr

static void test_opcode_path(const au_table *t)
{
    /* a 64-bit loop (CAST.SPIN.64) beside POPC.INC: 132e3 attempts with 4 atomic wavefronts and
     * 7 load wavefronts each (lanes over 4 words of one bank), 132e3 POPC.INC jobs of 1 wavefront */
    au_launch l;
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.ctr = loop_counters(264e3, 132e3 * 4 + 132e3, 132e3 * 11 + 132e3, 132e3, 0);
    l.ctr.cas_jobs = 132e3;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    au_instr code[2] = {ins("ATOMS.CAST.SPIN.64", 0x100), ins("ATOMS.POPC.INC.32", 0x200)};
    CHECK_EQ_INT(check_eval_code(&l, t, code, 2, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(!(l.res.flags & (AU_F_LOOP_LOADS_ESTIMATED | AU_F_LOOP_LOADS_UNKNOWN)));
    /* the launch's a is (4 + 1) / (2 * 1.5) = 5/3 passes for both classes: CAST.SPIN.64 carries
     * 2a = 10/3 atomic wavefronts and all 7 load wavefronts; popc_inc is priced as add (the
     * table lacks it) at a = 5/3 */
    double s_loop = 6.12 * (10.0 / 3 + 7) / 6, s_add = 1.02;
    CHECK_NEAR(l.res.busy, 1000 * s_loop + 1000 * s_add, 1e-6);
    check_launch_done(&l);
    l.ops = NULL;
    /* the same with 132e3 other loads: estimated, with a range */
    l.ctr.ld_inst = 264e3;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 2, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.res.flags & AU_F_LOOP_LOADS_ESTIMATED);
    CHECK(l.res.util_lo < l.res.util && l.res.util < l.res.util_hi);
    check_launch_done(&l);
    l.ops = NULL;
    /* without the load counters */
    l.ctr.have &= ~AU_C_LOOP_LOADS;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 2, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.res.flags & AU_F_LOOP_LOADS_UNKNOWN);
    CHECK(!(l.res.flags & AU_F_LOOP_LOADS_ESTIMATED));
    check_launch_done(&l);
}

/* The kernel's code narrows the estimate: no shared load outside the CAS loops sits in a loop, so
 * the loads beyond the attempts' are the loops' own reloads (a 64-bit min loop), the stores and
 * loads run at most once per warp. */
static void test_code_narrows(const au_table *t)
{
    au_launch l;
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.grid[0] = 132, l.grid[1] = l.grid[2] = 1;
    l.block[0] = 1024, l.block[1] = l.block[2] = 1; /* 4224 warps */
    l.dims = AU_DIMS_GRID | AU_DIMS_BLOCK;
    /* 132e3 attempts, 4 atomic wavefronts each; 264e3 loads (one reload per attempt), 4224
     * stores; 1e6 non-atomic wavefronts */
    l.ctr = loop_counters(132e3, 528e3, 528e3 + 1e6, 264e3, 4224);
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    au_instr code[1] = {ins("ATOMS.CAST.SPIN.64", 0x100)};
    /* without the code: W_o shared by instruction, 1e6 * 132e3 / 268224 */
    CHECK_EQ_INT(check_eval_code(&l, t, code, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    double w_share = 1e6 * 132e3 / 268224;
    CHECK_NEAR(l.res.util, 1000 * 6.12 * (4 + w_share / 132e3) / 6 / 1e5, 1e-9);
    check_launch_done(&l);
    l.ops = NULL;
    /* with it: the stores and at most 4224 x 2 cold loads at one wavefront each */
    l.sites = (au_load_sites){1, 1, 1, 0, 2};
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    double cold = 4224 * 2 + 4224, w = 1e6 - cold, lo = 1e6 - 32 * cold;
    CHECK(l.res.flags & AU_F_LOOP_LOADS_ESTIMATED);
    CHECK_NEAR(l.res.util, 1000 * 6.12 * (4 + w / 132e3) / 6 / 1e5, 1e-9);
    CHECK_NEAR(l.res.util_lo, 1000 * 6.12 * (4 + lo / 132e3) / 6 / 1e5, 1e-9);
    CHECK_NEAR(l.res.util_hi, 1000 * 6.12 * (4 + 1e6 / 132e3) / 6 / 1e5, 1e-9);
    check_launch_done(&l);
    l.ops = NULL;
    /* a hot load elsewhere (in another loop): back to the share by instruction */
    l.sites.hot_loads = 1;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(l.res.util, 1000 * 6.12 * (4 + w_share / 132e3) / 6 / 1e5, 1e-9);
    check_launch_done(&l);
    l.ops = NULL;
    /* no grid and block from the source: no warps to bound the cold loads, by instruction too */
    l.sites.hot_loads = 0;
    l.dims = AU_DIMS_GRID;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(l.res.util, 1000 * 6.12 * (4 + w_share / 132e3) / 6 / 1e5, 1e-9);
    check_launch_done(&l);
}

/* Shared-atomic wavefronts without counted jobs (generic-address ATOM, distributed shared memory):
 * never no_atomics; each wavefront priced at add's single-pass cost, flagged. */
static void test_unpriced(const au_table *t)
{
    au_result r;
    au_counters c = loop_counters(0, 132e3 * 32, 132e3 * 32, 0, 0);
    c.cas_jobs = 0;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.flags & AU_F_UNPRICED_WAVEFRONTS);
    CHECK(!(r.flags & AU_F_NO_ATOMICS));
    CHECK_NEAR(r.busy, 32000 * 1.02, 1e-6);
    CHECK_NEAR(r.util, 32000 * 1.02 / 1e5, 1e-12);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_NOT_LIMITING);
    c.active_cycles = 3.2e4;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_BOUND);
    CHECK(r.flags & AU_F_OVER_100);
    /* no wavefronts either: no atomics */
    c.wavefronts = 0;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK((r.flags & AU_F_NO_ATOMICS) && !(r.flags & AU_F_UNPRICED_WAVEFRONTS) && r.util == 0);
}

int main(void)
{
    au_table *t = make_table();
    CHECK(t != NULL);
    if (!t)
        return check_report("test_loops");
    test_service(t);
    test_loads();
    test_family_path(t);
    test_opcode_path(t);
    test_code_narrows(t);
    test_unpriced(t);
    au_table_free(t);
    return check_report("test_loops");
}
