/*
 * test_generic.c - generic atomics on shared memory (docs/opcodes.md, "Generic atomics"): GH100
 * counts their wavefronts but no shared-atomic instruction, so a launch with wavefronts and no jobs
 * is priced per wavefront with a range, from the generic family's cheapest wavefront (instructions
 * of many passes) to its dearest (one pass each), flag unpriced_wavefronts (add's costs without the
 * family); with the kernel's code naming such atomics it is their class `generic` (flag opcodes
 * too, the same range); forms whose shared-memory path is a CAS loop do not explain them.
 * Synthetic tables: add and generic at distinct costs (generic as on the H100: 2 cycles for one
 * pass, about 1 per pass for many), and add alone.
 */
#include "atomutil/model.h"
#define CHECK_WANT_INSTR
#include "check.h"

#include <stdlib.h>
#include <string.h>

static const au_thresholds thr = {0.80, 0.40};

/* add and generic on n = 1, 64, a = 1, 32, c = 0 and n; at n = 64 generic's single pass costs 2,
 * its 32 passes 32: S / a from 2 down to 1 */
static const char synthetic[] =
    "# atomutil-table v1\n"
    "# gpu_name: NVIDIA H100 80GB HBM3\n"
    "# compute_capability: 9.0\n"
    "# sm_count: 132\n"
    "# max_warps_per_sm: 64\n"
    "# method: steady\n"
    "# jobs_per_warp: 2048\n"
    "# repetitions: 1\n"
    "# status: provisional\n"
    "family,n,a,c,service_cycles,min_cycles,max_cycles,mad_cycles\n"
    "add,1,1,0,8,8,8,0\nadd,1,1,1,16,16,16,0\nadd,1,32,0,64,64,64,0\nadd,1,32,1,128,128,128,0\n"
    "add,64,1,0,1,1,1,0\nadd,64,1,64,2,2,2,0\nadd,64,32,0,32,32,32,0\nadd,64,32,64,64,64,64,0\n"
    "generic,1,1,0,9,9,9,0\ngeneric,1,1,1,16,16,16,0\ngeneric,1,32,0,70,70,70,0\n"
    "generic,1,32,1,128,128,128,0\ngeneric,64,1,0,2,2,2,0\n"
    "generic,64,1,64,3,3,3,0\ngeneric,64,32,0,32,32,32,0\ngeneric,64,32,64,64,64,64,0\n";

/* A launch of 132 SMs: J jobs, W wavefronts (GPU-wide), 200,000 active cycles, priced as add. */
static au_launch launch(const au_table *t, double jobs, double waves)
{
    au_launch l;
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.ctr.jobs = jobs;
    l.ctr.wavefronts = waves;
    l.ctr.active_cycles = 200000;
    l.ctr.warps = 40;
    l.ctr.have = AU_C_REQUIRED;
    CHECK_EQ_INT(au_model_eval(t, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    return l;
}

#define ins check_instr

/* No code: unpriced_wavefronts; U's range is W times the cheapest and the dearest wavefront over T,
 * the estimate the dearest while it fits in the active cycles, else the active cycles filled, never
 * below the cheapest; implausible only when the cheapest does not fit. */
static void test_no_code(const au_table *syn, const au_table *old)
{
    /* 50,000 wavefronts per SM in 200,000 cycles: 25 to 50 %, U 50 % */
    au_launch l = launch(syn, 0, 132 * 50000.0);
    CHECK((l.res.flags & AU_F_UNPRICED_WAVEFRONTS) && (l.res.flags & AU_F_RANGE));
    CHECK(!(l.res.flags & (AU_F_NO_ATOMICS | AU_F_UNUSABLE | AU_F_OVER_100)));
    CHECK_NEAR(l.res.util_lo, 0.25, 1e-12);
    CHECK_NEAR(l.res.util_hi, 0.5, 1e-12);
    CHECK_NEAR(l.res.util, 0.5, 1e-12);
    CHECK_NEAR(l.res.service, 2, 1e-12);
    CHECK(l.res.verdict == AU_VERDICT_UNCERTAIN);
    /* 190,000: 95 to 190 %: the instructions had several passes, U fills the active cycles, atomic-
     * bound at both ends (the top capped at 105 %) */
    l = launch(syn, 0, 132 * 190000.0);
    CHECK(!(l.res.flags & (AU_F_UNUSABLE | AU_F_OVER_100)));
    CHECK_NEAR(l.res.util, 1, 1e-12);
    CHECK_NEAR(l.res.util_lo, 0.95, 1e-12);
    CHECK_NEAR(l.res.util_hi, 1.05, 1e-12);
    CHECK_NEAR(l.res.service, 200000 / 190000.0, 1e-12);
    CHECK(l.res.verdict == AU_VERDICT_BOUND);
    /* the queue mode prices them the same */
    au_result q;
    CHECK_EQ_INT(au_model_eval(syn, "add", &l.ctr, 132, &thr, AU_BUSY_QUEUE, &q), AU_OK);
    CHECK_NEAR(q.util, 1, 1e-12);
    /* 220,000: even the cheapest is 110 %: U is it, over 100 %; 320,000: 160 %, implausible */
    l = launch(syn, 0, 132 * 220000.0);
    CHECK_NEAR(l.res.util, 1.1, 1e-12);
    CHECK((l.res.flags & AU_F_OVER_100) && !(l.res.flags & AU_F_UNUSABLE));
    l = launch(syn, 0, 132 * 320000.0);
    CHECK((l.res.flags & AU_F_IMPLAUSIBLE) && l.res.verdict == AU_VERDICT_UNKNOWN && l.res.util == 0);
    /* without the generic family: add's one cycle per pass, flat */
    l = launch(old, 0, 132 * 100000.0);
    CHECK(l.res.flags & AU_F_UNPRICED_WAVEFRONTS);
    CHECK_NEAR(l.res.util, 0.5, 1e-12);
    CHECK_NEAR(l.res.util_lo, 0.5, 1e-12);
    CHECK_NEAR(l.res.util_hi, 0.5, 1e-12);
    CHECK(l.res.verdict == AU_VERDICT_SIGNIFICANT);
}

/* The code names generic atomics that land in shared memory: class generic, the same U and range,
 * flags opcodes and unpriced_wavefronts; without the family in the table the add price stays, flag
 * unknown_opcode. */
static void test_explained(const au_table *syn, const au_table *old)
{
    au_instr code[3] = {ins("ATOM.E.MAX.STRONG.SM", 0x100), ins("ATOMG.E.ADD.STRONG.GPU", 0x110),
                        ins("ATOM.E.MAX.STRONG.SM", 0x120)};
    for (int k = 0; k < 2; ++k) {
        const au_table *t = k ? old : syn;
        au_launch l = launch(t, 0, 132 * 60000.0);
        const au_result before = l.res;
        CHECK_EQ_INT(check_eval_code(&l, t, code, 3, &thr, AU_BUSY_SATURATED), AU_OK);
        CHECK((l.res.flags & AU_F_OPCODES) && (l.res.flags & AU_F_UNPRICED_WAVEFRONTS));
        CHECK(!(l.res.flags & AU_F_UNKNOWN_OPCODE) == !k);
        CHECK_NEAR(l.res.util, before.util, 1e-12);
        CHECK_NEAR(l.res.util_lo, before.util_lo, 1e-12);
        CHECK_NEAR(l.res.util_hi, before.util_hi, 1e-12);
        CHECK(l.res.verdict == before.verdict &&
              before.verdict == (k ? AU_VERDICT_NOT_LIMITING : AU_VERDICT_UNCERTAIN));
        CHECK(l.ops && l.ops->nclass == 1 && l.ops->ninstr == 2);
        if (l.ops && l.ops->nclass == 1) {
            CHECK(strcmp(l.ops->classes, "generic 100%") == 0 && strcmp(l.ops->cls[0].family, "generic") == 0);
            CHECK_EQ_INT(l.ops->cls[0].ninstr, 2);
            CHECK_NEAR(l.ops->cls[0].busy, l.res.busy, 1e-9);
            CHECK(strcmp(l.ops->instr[0].family, "generic") == 0);
        }
        check_launch_done(&l);
    }
}

/* Forms whose shared-memory path is a CAS loop explain nothing: a half2 add's generic form beside
 * its ATOMS.CAST.SPIN loop, in a launch with wavefronts but no jobs (the generic path ran, to other
 * memory), keeps unpriced_wavefronts. */
static void test_not_explained(const au_table *syn)
{
    au_instr code[2] = {ins("ATOMS.CAST.SPIN", 0x100), ins("ATOM.E.ADD.F16x2.RN.STRONG.GPU", 0x180)};
    au_launch l = launch(syn, 0, 132 * 1000.0);
    const double util = l.res.util;
    CHECK_EQ_INT(check_eval_code(&l, syn, code, 2, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK((l.res.flags & AU_F_UNPRICED_WAVEFRONTS) && !(l.res.flags & AU_F_OPCODES));
    CHECK_NEAR(l.res.util, util, 1e-12);
    CHECK_NEAR(l.res.util, 1000 * 2 / 200000.0, 1e-12);
    CHECK(l.ops && l.ops->ninstr == 2 && l.ops->classes[0] == '\0');
    if (l.ops && l.ops->ninstr == 2)
        CHECK(strcmp(l.ops->instr[1].family, "-") == 0); /* the loop's: add, which this table has */
    check_launch_done(&l);
}

/* The generic counter set (docs/counters.md): the generic atomics' instructions G (and their CAS
 * ones) counted beside the wavefronts, no ATOMS job: each instruction a job of the generic family,
 * a = W / (G + G_cas), no range, no unpriced_wavefronts; with the code naming them, class generic
 * with G jobs.  At n = 64 the synthetic generic costs 2 at a = 1 and 32 at a = 32: 4,000
 * instructions per SM of 32 passes in 200,000 cycles are 128,000 cycles, U 64 % (the range of
 * wavefronts alone was 64-128 %, the estimate 100 %); of one pass, 8,000 cycles, U 4 %. */
static void test_counted(const au_table *syn, const au_table *old)
{
    au_launch l = launch(syn, 0, 132 * 128000.0);
    CHECK(l.res.flags & AU_F_UNPRICED_WAVEFRONTS);
    CHECK_NEAR(l.res.util, 1, 1e-12); /* the estimate without the instructions */
    l.ctr.generic_jobs = 132 * 4000.0;
    l.ctr.have |= AU_C_GENERIC;
    CHECK_EQ_INT(au_model_eval(syn, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK(!(l.res.flags & (AU_F_UNPRICED_WAVEFRONTS | AU_F_RANGE | AU_F_UNUSABLE | AU_F_UNKNOWN_OPCODE)));
    CHECK_NEAR(l.res.a, 32, 1e-12);
    CHECK_NEAR(l.res.jobs, 4000, 1e-9);
    CHECK_NEAR(l.res.util, 0.64, 1e-12);
    CHECK(l.res.verdict == AU_VERDICT_SIGNIFICANT);
    au_instr gen[1] = {ins("ATOM.E.MAX.STRONG.SM", 0x100)};
    au_launch c = l;
    CHECK_EQ_INT(check_eval_code(&c, syn, gen, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(c.res.util, 0.64, 1e-12);
    CHECK((c.res.flags & AU_F_OPCODES) && !(c.res.flags & AU_F_RANGE));
    CHECK(c.ops && strcmp(c.ops->classes, "generic 100%") == 0);
    if (c.ops && c.ops->nclass == 1)
        CHECK(strcmp(c.ops->cls[0].family, "generic") == 0 && c.ops->cls[0].jobs == 132 * 4000.0);
    check_launch_done(&c);
    /* one pass each: 2 cycles an instruction */
    l.ctr.wavefronts = l.ctr.generic_jobs;
    CHECK_EQ_INT(au_model_eval(syn, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_NEAR(l.res.a, 1, 1e-12);
    CHECK_NEAR(l.res.util, 0.04, 1e-12);
    /* CAS instructions: a CAS pass takes two wavefronts; priced in the family's c column */
    l.ctr.wavefronts = 132 * 8000.0, l.ctr.generic_cas = l.ctr.generic_jobs;
    l.ctr.have |= AU_C_GENERIC_CAS;
    CHECK_EQ_INT(au_model_eval(syn, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK_NEAR(l.res.a, 1, 1e-12);
    CHECK_NEAR(l.res.util, 4000 * 3 / 200000.0, 1e-12);
    /* a table without the generic family: add's costs, flag unknown_opcode */
    l.ctr.have &= ~AU_C_GENERIC_CAS;
    l.ctr.wavefronts = 132 * 128000.0;
    CHECK_EQ_INT(au_model_eval(old, "add", &l.ctr, 132, &thr, AU_BUSY_SATURATED, &l.res), AU_OK);
    CHECK(l.res.flags & AU_F_UNKNOWN_OPCODE);
    CHECK_NEAR(l.res.util, 0.64, 1e-12);
    /* beside ATOMS jobs the instructions do not split the wavefronts: priced as before */
    au_launch b = launch(syn, 132 * 1000.0, 132 * 4000.0), w = b;
    b.ctr.generic_jobs = 132 * 1000.0, b.ctr.have |= AU_C_GENERIC;
    CHECK_EQ_INT(au_model_eval(syn, "add", &b.ctr, 132, &thr, AU_BUSY_SATURATED, &b.res), AU_OK);
    CHECK_NEAR(b.res.util, w.res.util, 1e-12);
}

/* Beside counted ATOMS jobs the generic wavefronts are in the launch's a (their cost per wavefront
 * is the ATOMS family's per pass): the price is the ATOMS code's alone, the generic class listed
 * with no jobs and no busy share; in the cluster set generic atomics stay class dsmem. */
static void test_beside_atoms(const au_table *syn)
{
    au_instr atoms[1] = {ins("ATOMS.ADD", 0x100)};
    au_instr both[2] = {ins("ATOMS.ADD", 0x100), ins("ATOM.E.ADD.STRONG.SM", 0x110)};
    au_launch want = launch(syn, 132 * 1000.0, 132 * 4000.0), l = want;
    CHECK_EQ_INT(check_eval_code(&want, syn, atoms, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_EQ_INT(check_eval_code(&l, syn, both, 2, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(l.res.util, want.res.util, 1e-12);
    CHECK(l.ops && l.ops->nclass == 2 && strcmp(l.ops->classes, "add 100%") == 0);
    if (l.ops && l.ops->nclass == 2)
        CHECK(strcmp(l.ops->cls[1].family, "generic") == 0 && l.ops->cls[1].jobs == 0 && l.ops->cls[1].busy == 0);
    check_launch_done(&l);
    check_launch_done(&want);
    /* the cluster set (no local wavefronts; generic jobs counted), beside ATOMS jobs */
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.ctr.active_cycles = 200000, l.ctr.warps = 32, l.ctr.cluster_size = 2, l.ctr.jobs = 132e3;
    l.ctr.have = (AU_C_REQUIRED & ~AU_C_WAVEFRONTS) | AU_C_DSMEM | AU_C_CLUSTER;
    l.ctr.generic_jobs = 132e3, l.ctr.dshared_wavefronts = 132e3, l.ctr.dshared_xbar = 9 * 132e3;
    CHECK_EQ_INT(check_eval_code(&l, syn, both, 2, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.ops && l.ops->nclass == 2 && strcmp(l.ops->instr[1].family, "dsmem") == 0);
    if (l.ops && l.ops->nclass == 2)
        CHECK(strcmp(l.ops->cls[1].family, "dsmem") == 0 && l.ops->cls[1].jobs == 132e3);
    check_launch_done(&l);
    /* without ATOMS jobs the code has nothing to price: the DSMEM counters' result stands (this
     * table has no DSMEM calibration: flag dsmem_uncalibrated) */
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.ctr.active_cycles = 200000, l.ctr.warps = 32, l.ctr.cluster_size = 2;
    l.ctr.have = (AU_C_REQUIRED & ~AU_C_WAVEFRONTS) | AU_C_DSMEM | AU_C_CLUSTER;
    l.ctr.generic_jobs = 132e3, l.ctr.dshared_wavefronts = 132e3, l.ctr.dshared_xbar = 9 * 132e3;
    CHECK_EQ_INT(check_eval_code(&l, syn, both + 1, 1, &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(!l.ops && (l.res.flags & AU_F_DSMEM_UNCALIBRATED) && !au_launch_wants_code(&l));
}

int main(void)
{
    au_table *syn = NULL, *old = NULL;
    /* the second table: the same without the generic family (a table made before it) */
    if (au_table_parse("synthetic", synthetic, sizeof synthetic - 1, &syn) != AU_OK ||
        au_table_parse("synthetic-add", synthetic, (size_t)(strstr(synthetic, "generic,") - synthetic), &old) !=
            AU_OK) {
        fprintf(stderr, "test_generic: %s\n", au_last_error());
        return 1;
    }
    CHECK(!au_table_has_family(old, "generic") && au_table_has_family(syn, "generic"));
    test_no_code(syn, old);
    test_explained(syn, old);
    test_not_explained(syn);
    test_counted(syn, old);
    test_beside_atoms(syn);
    au_table_free(syn);
    au_table_free(old);
    return check_report("test_generic");
}
