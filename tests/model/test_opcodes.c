/*
 * test_opcodes.c - au_launch_eval with a kernel's code (atomutil-profile --opcodes, docs/opcodes.md) against
 * the single-family model on the measured H200 table: a kernel whose code has one family prices
 * exactly as --family <that family>; the CAS counter splits CAS-class from other jobs; the flags
 * for split estimates, mismatches and unknown opcodes.
 */
#include "atomutil/model.h"
#define CHECK_WANT_INSTR
#include "check.h"

#include <stdlib.h>
#include <string.h>

static const au_thresholds thr = {0.80, 0.40};

/* A launch of 132 SMs with the given counters, evaluated as family fam (the by-family price). */
static au_launch launch(const au_table *t, const char *fam, double jobs, double cas, double waves)
{
    au_launch l;
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.ctr.jobs = jobs;
    l.ctr.cas_jobs = cas;
    l.ctr.wavefronts = waves;
    l.ctr.active_cycles = 200000;
    l.ctr.warps = 40;
    l.ctr.have = AU_C_REQUIRED;
    CHECK_EQ_INT(au_model_eval(t, fam, &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    return l;
}

#define ins check_instr

/* Prices l by code[0..n) and checks that it equals the family fam's price of the same counters. */
static void same_as_family(const au_table *t, const char *fam, const au_instr *code, size_t n, double jobs, double cas,
                           double waves, const char *classes)
{
    au_launch l = launch(t, "add", jobs, cas, waves);
    au_launch want = launch(t, fam, jobs, cas, waves);
    CHECK_EQ_INT(check_eval_code(&l, t, code, n, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.ops != NULL);
    if (!l.ops)
        return;
    CHECK(l.res.flags & AU_F_OPCODES);
    CHECK_NEAR(l.res.util, want.res.util, 1e-12);
    CHECK_NEAR(l.res.service, want.res.service, 1e-12);
    CHECK_NEAR(l.res.a, want.res.a, 1e-12);
    CHECK_NEAR(l.ops->by_family.util, launch(t, "add", jobs, cas, waves).res.util, 1e-12);
    if (strcmp(l.ops->classes, classes) != 0) {
        fprintf(stderr, "classes '%s', want '%s'\n", l.ops->classes, classes);
        CHECK(0);
    }
    double busy = 0;
    for (size_t c = 0; c < l.ops->nclass; ++c)
        busy += l.ops->cls[c].busy;
    CHECK_NEAR(busy, l.res.busy, 1e-6 * l.res.busy);
    CHECK(!(l.ops->flags & (AU_F_SPLIT_ESTIMATED | AU_F_OPCODE_MISMATCH | AU_F_UNKNOWN_OPCODE)));
    check_launch_done(&l);
}

static void test_single_families(const au_table *t)
{
    /* POPC.INC (a global atomic in the same code is not a job of the unit) */
    au_instr popc[3] = {ins("ATOMS.POPC.INC.32", 0x100), ins("ATOMG.E.ADD.STRONG.GPU", 0x110),
                        ins("ATOMS.POPC.INC.32", 0x120)};
    same_as_family(t, "popc_inc", popc, 3, 1e6, 0, 3.2e6, "popc_inc 100%");
    /* a float atomicAdd loop: CAST.SPIN, counted as CAS by the hardware */
    au_instr spin[1] = {ins("ATOMS.CAST.SPIN", 0x200)};
    same_as_family(t, "cast_spin", spin, 1, 2e6, 2e6, 4e6, "cast_spin 100%");
    au_instr spin64[1] = {ins("ATOMS.CAST.SPIN.64", 0x200)};
    same_as_family(t, "cast_spin64", spin64, 1, 2e6, 2e6, 6e6, "cast_spin64 100%");
    au_instr mx[2] = {ins("ATOMS.MAX.S32", 0x300), ins("ATOMS.MAX.S32", 0x310)};
    same_as_family(t, "max", mx, 2, 5e5, 0, 1e6, "max 100%");
    /* ADD and CAS: the CAS jobs are priced in add's c column, as --family add does */
    au_instr mix[3] = {ins("ATOMS.ADD", 0x100), ins("ATOMS.ADD", 0x110), ins("ATOMS.CAS", 0x120)};
    same_as_family(t, "add", mix, 3, 4e6, 1e6, 5e6, "add 75%, cas 25%");
}

/* A CAS loop next to other atomics (k-means: CAST.SPIN for float atomicAdd, POPC.INC for a count):
 * the CAST.SPIN jobs cost their own family's S, added to the others' (no c column was measured
 * with CAS loops); 32-bit CAS stays in the c column (test_single_families). */
static void test_cas_loop_mix(const au_table *t)
{
    au_instr code[3] = {ins("ATOMS.CAST.SPIN", 0x100), ins("ATOMS.CAST.SPIN", 0x110), ins("ATOMS.POPC.INC.32", 0x120)};
    double J = 132 * 50000.0, Jcas = 0.98 * J;
    au_launch l = launch(t, "add", J, Jcas, J + Jcas); /* one pass per job: a = 1 */
    au_launch pop = launch(t, "popc_inc", 0.02 * J, 0, 0.02 * J);
    au_launch spin = launch(t, "cast_spin", Jcas, Jcas, 2 * Jcas);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 3, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.ops && strcmp(l.ops->classes, "cast_spin 98%, popc_inc 2%") == 0);
    CHECK_NEAR(l.res.busy, pop.res.busy + spin.res.busy, 1e-9 * l.res.busy);
    CHECK_NEAR(l.res.cas_queued, 0, 1e-12);          /* no 32-bit CAS among the popc jobs */
    CHECK(l.res.util > 1.4 * l.ops->by_family.util); /* add's CAS column prices a CAS, not a loop */
    check_launch_done(&l);
    /* the busiest SM (.max rollups) is priced with the classes too */
    l = launch(t, "add", J, Jcas, J + Jcas);
    l.ctr.wavefronts_max = 1.5 * (J + Jcas) / 132;
    l.ctr.active_max = 210000;
    l.ctr.have |= AU_C_WAVEFRONTS_MAX | AU_C_ACTIVE_MAX;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, t, code, 3, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(l.res.imbalance, 1.5, 1e-12);
    CHECK(l.res.flags & AU_F_IMBALANCED);
    CHECK_NEAR(l.res.util_busiest, fmax(l.res.util, l.res.busy * 1.5 / 210000), 1e-12);
    CHECK(l.res.util_busiest > l.ops->by_family.util_busiest);
    check_launch_done(&l);
}

static void test_flags(const au_table *t)
{
    /* CAS jobs counted, but the code has no CAS-class opcode: all jobs are the code's */
    au_instr add[1] = {ins("ATOMS.ADD", 0x100)};
    au_launch l = launch(t, "add", 1e6, 5e5, 1.5e6);
    au_launch want = launch(t, "add", 1e6, 0, 1.5e6);
    CHECK_EQ_INT(check_eval_code(&l, t, add, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.ops && (l.ops->flags & AU_F_OPCODE_MISMATCH) && (l.res.flags & AU_F_OPCODE_MISMATCH));
    CHECK_NEAR(l.res.jobs, want.res.jobs, 1e-9);
    CHECK_NEAR(l.res.cas_queued, 0, 1e-12);
    if (l.ops)
        CHECK(strcmp(l.ops->classes, "add 100%") == 0);
    check_launch_done(&l);

    /* two non-CAS families: their jobs split by instruction count, flagged */
    au_instr two[4] = {ins("ATOMS.ADD", 0x100), ins("ATOMS.ADD", 0x110), ins("ATOMS.ADD", 0x120),
                       ins("ATOMS.MIN.S32", 0x130)};
    l = launch(t, "add", 8e5, 0, 8e5);
    CHECK_EQ_INT(check_eval_code(&l, t, two, 4, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.ops && (l.res.flags & AU_F_SPLIT_ESTIMATED));
    if (l.ops) {
        CHECK(strcmp(l.ops->classes, "add 75%, min 25%") == 0);
        CHECK_EQ_INT(l.ops->nclass, 2);
        CHECK_NEAR(l.ops->cls[0].jobs, 6e5, 1e-6);
        CHECK_EQ_INT(l.ops->cls[0].ninstr, 3);
        CHECK_NEAR(l.ops->cls[1].jobs, 2e5, 1e-6);
        CHECK_EQ_INT(l.ops->ninstr, 4);
    }
    check_launch_done(&l);

    /* the same code with each instruction's executions (an Nsight Compute report's per-PC counts):
     * the jobs split by them, exactly, not flagged */
    two[0].jobs = 1e5, two[1].jobs = 1e5, two[2].jobs = 0, two[3].jobs = 6e5;
    au_launch_code counted = {two, 4, NULL, 1};
    l = launch(t, "add", 8e5, 0, 8e5);
    l.code = &counted;
    l.evals = 0;
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.ops && !(l.res.flags & AU_F_SPLIT_ESTIMATED) && (l.res.flags & AU_F_OPCODES));
    if (l.ops) {
        CHECK(strcmp(l.ops->classes, "min 75%, add 25%") == 0);
        CHECK_NEAR(l.ops->cls[0].jobs, 6e5, 1e-6);
        CHECK_NEAR(l.ops->cls[1].jobs, 2e5, 1e-6);
    }
    check_launch_done(&l);
    free(l.adv);

    /* an opcode atomutil does not know is priced as add */
    au_instr odd[1] = {ins("ATOMS.FOO", 0x100)};
    l = launch(t, "add", 1e6, 0, 1e6);
    want = launch(t, "add", 1e6, 0, 1e6);
    CHECK_EQ_INT(check_eval_code(&l, t, odd, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.res.flags & AU_F_UNKNOWN_OPCODE);
    CHECK_NEAR(l.res.util, want.res.util, 1e-12);
    check_launch_done(&l);

    /* jobs, but no shared atomic in the kernel's own code: the family's price stays */
    au_instr none[1] = {ins("ATOMG.E.ADD.STRONG.GPU", 0x100)};
    l = launch(t, "add", 1e6, 0, 1e6);
    CHECK_EQ_INT(check_eval_code(&l, t, none, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK((l.res.flags & AU_F_UNKNOWN_OPCODE) && !(l.res.flags & AU_F_OPCODES));
    CHECK_NEAR(l.res.util, want.res.util, 1e-12);
    if (l.ops)
        CHECK_EQ_INT(l.ops->ninstr, 0);
    check_launch_done(&l);

    /* a launch without its counters keeps 'unknown': the code has nothing to price */
    memset(&l, 0, sizeof l);
    CHECK_EQ_INT(check_eval_code(&l, t, add, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.res.verdict == AU_VERDICT_UNKNOWN && (l.res.flags & AU_F_MISSING) && !(l.res.flags & AU_F_OPCODES));
    CHECK(l.ops == NULL && l.code == NULL);

    /* invalid arguments */
    CHECK_EQ_INT(au_launch_eval(NULL, t, "add", &thr, AU_BUSY_SATURATED), AU_E_INVAL);
    CHECK_EQ_INT(check_eval_code(&l, t, NULL, 1, &thr, AU_BUSY_SATURATED), AU_E_INVAL);
}

/* Every launch is evaluated once: by its code where attached, else as the family; a second
 * evaluation of a launch is refused; au_report_eval evaluates each launch of a report once. */
static void test_evaluated_once(const au_table *t)
{
    au_instr cas[2] = {ins("ATOMS.CAS", 0x100), ins("ATOMS.ADD", 0x110)};
    au_launch_code code = {cas, 2, NULL, 0};
    au_report r;
    au_report_init(&r);
    for (int i = 0; i < 3; ++i) {
        au_launch *l = au_report_add(&r);
        *l = launch(t, "add", 1e6, i == 1 ? 0 : 5e5, 2e6);
        l->res = (au_result){0}; /* not evaluated: launch() priced it to compare with */
        l->code = i == 2 ? NULL : &code;
        l->kernel = NULL;
    }
    CHECK_EQ_INT(au_report_eval(&r, t, "add", &thr), AU_OK);
    for (size_t i = 0; i < r.count; ++i) {
        CHECK_EQ_INT(r.launches[i].evals, 1);
        CHECK(r.launches[i].code == NULL);
    }
    CHECK((r.launches[0].res.flags & AU_F_OPCODES) && r.launches[0].ops && r.launches[0].ops->nclass == 2);
    CHECK((r.launches[1].res.flags & AU_F_OPCODES) && (r.launches[1].res.flags & AU_F_OPCODE_MISMATCH) == 0);
    CHECK(!(r.launches[2].res.flags & AU_F_OPCODES) && r.launches[2].ops == NULL);
    /* by its code, the first launch's family price is kept for comparison */
    CHECK_NEAR(r.launches[0].ops->by_family.util, launch(t, "add", 1e6, 5e5, 2e6).res.util, 1e-12);
    CHECK_EQ_INT(au_launch_eval(&r.launches[2], t, "add", &thr, AU_BUSY_SATURATED), AU_E_INVAL);
    CHECK_EQ_INT(r.launches[2].evals, 2);
    CHECK_EQ_INT(au_report_eval(&r, t, "add", &thr), AU_E_INVAL);
    au_report_free(&r);
}

/* au_dsmem_apply with the DSMEM sector counters (the cluster set, docs/model.md "DSMEM"): remote
 * loads and stores are not atomics (flag dsmem_other_traffic, U 0); atomics only price as without
 * the sectors; mixed traffic prices the atomics' share, with a range up to all of it. */
static void test_dsmem_traffic(const au_table *t)
{
    au_counters c;
    memset(&c, 0, sizeof c);
    c.active_cycles = 200000, c.warps = 32, c.cluster_size = 2;
    c.have = (AU_C_REQUIRED & ~AU_C_WAVEFRONTS) | AU_C_DSMEM | AU_C_CLUSTER;
    /* 132 SMs x 1000 remote requests of 32 lanes on distinct words: 4 sectors, 1 wavefront, 9
     * interface cycles each */
    c.generic_jobs = 132e3, c.dshared_wavefronts = 132e3, c.dshared_xbar = 9 * 132e3;
    au_result plain, r;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &plain), AU_OK);
    CHECK((plain.flags & AU_F_DSMEM) && plain.util > 0);
    /* the same with the sectors, all atomic: the same U, no new flag */
    c.have |= AU_C_DSHARED_SECTORS;
    c.dshared_sectors = c.dshared_sectors_atom = 4 * 132e3;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util, plain.util, 1e-12);
    CHECK(!(r.flags & (AU_F_DSMEM_OTHER_TRAFFIC | AU_F_DSMEM_MIXED)));
    /* remote stores (no generic atomic, no atomic sector): not priced, not DSMEM atomics */
    c.generic_jobs = 0, c.dshared_sectors_atom = 0;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK((r.flags & AU_F_DSMEM_OTHER_TRAFFIC) && (r.flags & AU_F_NO_ATOMICS) && !(r.flags & AU_F_DSMEM));
    CHECK(r.util == 0 && r.verdict == AU_VERDICT_NOT_LIMITING);
    /* half the sectors atomic (the atomics' requests and as many stores'): priced between the
     * sectors' share and all of the interface's cycles, the estimate at 2f / (1 + f) of them */
    c.generic_jobs = 66e3, c.dshared_sectors_atom = 2 * 132e3;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, 132, &thr, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK((r.flags & AU_F_DSMEM) && (r.flags & AU_F_DSMEM_MIXED) && (r.flags & AU_F_DSMEM_OTHER_TRAFFIC));
    CHECK(r.util_lo < r.util && r.util < r.util_hi);
    CHECK_NEAR(r.util_hi, plain.util, 1e-9);
    CHECK_NEAR(r.util_lo, plain.util * 0.5, 1e-9);
    CHECK_NEAR(r.util, plain.util * 2 * 0.5 / 1.5, 1e-9);
}

/* A CAS loop whose counters say 1000 wavefronts an attempt: priced as add (a clamped to 32) U is
 * 50 %, by its opcode (every wavefront a cycle) about 16 times that: out of range at the unit's
 * capacity, so the launch becomes unknown (implausible_counters) in either busy mode; with the 2
 * wavefronts an attempt that CAST.SPIN makes, its opcode's price stands. */
static void test_implausible_by_opcodes(const au_table *t)
{
    const double J = 132 * 200000 * 0.5 / 64;
    au_instr loop[1] = {ins("ATOMS.CAST.SPIN", 0x100)};
    for (int m = 0; m < 2; ++m) {
        au_busy_mode busy = m ? AU_BUSY_QUEUE : AU_BUSY_SATURATED;
        au_launch l = launch(t, "add", J, J, 1000 * J);
        l.ctr.shared_wavefronts = 1001 * J, l.ctr.ld_inst = J, l.ctr.st_inst = 0;
        l.ctr.have |= AU_C_LOOP_LOADS;
        CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, busy, &l.res), AU_OK);
        CHECK(!(l.res.flags & AU_F_UNUSABLE));
        CHECK_NEAR(l.res.util, 0.5, 0.01);
        CHECK_EQ_INT(check_eval_code(&l, t, loop, 1, &thr, busy), AU_OK);
        CHECK_EQ_INT(l.res.flags, AU_F_IMPLAUSIBLE);
        CHECK(l.res.verdict == AU_VERDICT_UNKNOWN && l.res.util == 0 && l.res.why[0]);
        CHECK(l.ops && l.ops->ninstr == 1);
        check_launch_done(&l);
        l = launch(t, "add", J, J, 2 * J);
        l.ctr.shared_wavefronts = 3 * J, l.ctr.ld_inst = J, l.ctr.st_inst = 0;
        l.ctr.have |= AU_C_LOOP_LOADS;
        CHECK_EQ_INT(check_eval_code(&l, t, loop, 1, &thr, busy), AU_OK);
        CHECK((l.res.flags & AU_F_OPCODES) && !(l.res.flags & AU_F_UNUSABLE));
        CHECK(l.res.util > 0.01 && l.res.util < 0.05); /* 1562.5 attempts a SM, about 3 cycles each */
        check_launch_done(&l);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_opcodes TABLE.csv (a measured table with every family)\n");
        return 2;
    }
    au_table *t = NULL;
    if (au_table_load(argv[1], &t) != AU_OK) {
        fprintf(stderr, "test_opcodes: %s\n", au_last_error());
        return 1;
    }
    test_single_families(t);
    test_cas_loop_mix(t);
    test_flags(t);
    test_dsmem_traffic(t);
    test_implausible_by_opcodes(t);
    test_evaluated_once(t);
    au_table_free(t);
    return check_report("test_opcodes");
}
