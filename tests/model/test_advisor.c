/*
 * test_advisor.c - what each cure would buy (model/src/advisor.c, docs/advisor.md): the expected
 * passes of random lanes, each cure's busy time priced with the table as the launch itself is, the
 * time it leaves, the cure named first, the launches no cure applies to, and CAS loops priced by
 * their entries, and the loads that hit in L2.  A small table built
 * in memory: add S(64, a) = a cycles, popc_inc 0.9 a, cast_spin 3 cycles an attempt (a wavefront a
 * cycle: au_loop_service), cast_spin64 the same.
 */
#include "atomutil/model.h"
#include "check.h"
#include "mem_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const au_thresholds thr = {0.80, 0.40};

/* lat: the table's load latencies (L2 hit, DRAM) and MATCH.ANY cost per value (throughput,
 * latency), or NULL for a table without them */
static au_table *make_table(const double *lat)
{
    au_table *t = mem_table_new_full(lat ? lat[0] : 0, lat ? lat[1] : 0, lat ? lat[2] : 0, lat ? lat[3] : 0);
    if (!t)
        return NULL;
    for (int n = 1; n <= 64; n += 63)
        for (int c = 0; c <= n; c += n) {
            for (int a = 1; a <= 32; a *= 2) {
                mem_put(t, "add", n, a, c, a);
                mem_put(t, "popc_inc", n, a, c, 0.9 * a);
            }
            mem_put(t, "cast_spin", n, 1, c, 3);
            mem_put(t, "cast_spin64", n, 1, c, 3);
            mem_put(t, "cast_spin64", n, 2, c, 6);
            mem_put(t, "cast_spin_mine", n, 1, c, 3);
            mem_put(t, "cas", n, 1, c, 2);
        }
    if (au_table_finalize(t) != AU_OK) {
        au_table_free(t);
        return NULL;
    }
    return t;
}

/* A launch of 1000 jobs per SM on 132 SMs, a passes each (cas: all of them CAS-loop attempts),
 * T active cycles, 100 us, one warp per SM: the closed network of the time model then has the
 * closed form X = 1 / (Z + S), U = S / (Z + S). */
static au_launch launch(double a, double T, int cas)
{
    au_launch l;
    memset(&l, 0, sizeof l);
    l.sm_count = 132;
    l.duration_ns = 100000;
    l.ctr.jobs = 132e3;
    l.ctr.cas_jobs = cas ? 132e3 : 0;
    l.ctr.wavefronts = 132e3 * a * (cas ? 2 : 1);
    l.ctr.active_cycles = T;
    l.ctr.warps = 1;
    l.ctr.have = AU_C_REQUIRED;
    return l;
}

static void test_random_max_load(void)
{
    /* exact, by the same sum in rational arithmetic; 200,000 random draws gave 3.5316 */
    CHECK_NEAR(au_random_max_load(32, 32), 3.532940993, 1e-8);
    CHECK_NEAR(AU_RANDOM_MAX_LOAD_32, au_random_max_load(32, 32), 1e-12);
    CHECK_NEAR(au_random_max_load(1, 32), 1, 1e-12);
    CHECK_NEAR(au_random_max_load(32, 1), 32, 1e-9);
    CHECK_NEAR(au_random_max_load(2, 2), 1.5, 1e-12);
    CHECK_NEAR(au_random_max_load(0, 32), 0, 0);
}

static void test_best(void)
{
    double t[AU_CURE_COUNT];
    for (int k = 0; k < AU_CURE_COUNT; ++k)
        t[k] = 1000;
    CHECK_EQ_INT(au_best_cure(t, 1000), -1); /* nothing saves */
    t[AU_CURE_POPC] = 500, t[AU_CURE_ONE_PASS] = 505;
    CHECK_EQ_INT(au_best_cure(t, 1000), AU_CURE_ONE_PASS); /* within 1 %: the simpler, earlier cure */
    t[AU_CURE_POPC] = 490;
    CHECK_EQ_INT(au_best_cure(t, 1000), AU_CURE_POPC);
    CHECK(strcmp(au_cure_name(AU_CURE_REPLICATE_32), "replicate_32") == 0);
    CHECK(au_cure_words(AU_CURE_NATIVE)[0] != '\0');
    CHECK(strcmp(au_cure_name(AU_CURE_COUNT), "") == 0);
}

/* a = 32, B = 32000 of T = 40000 cycles */
static void test_conflicted(const au_table *t)
{
    au_launch l = launch(32, 40000, 0);
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(l.res.busy, 32000, 1e-6);
    const au_advice *a = l.adv;
    CHECK(a != NULL);
    if (!a)
        return;
    const au_whatif *w = &a->w[AU_CURE_ONE_PASS];
    CHECK(w->applies);
    CHECK_NEAR(w->busy, 1000, 1e-6);
    /* S = 32, U = 0.8, the network's u = U / 0.975: the rest of the warp's work Z = S (1 - u) / u
     * cycles a job, kept after the cure, so T' / T = (Z + S') / (Z + S) = 1 - u + u S' / S; the
     * range from U +- 0.03 */
    double u = 0.8 / 0.975, ulo = 0.83 / 0.975, uhi = 0.77 / 0.975;
    CHECK_NEAR(w->active, 40000 * (1 - u + u / 32), 1e-3);
    CHECK_NEAR(w->active_lo, 40000 * (1 - ulo + ulo / 32) * 0.97, 1e-3); /* and 3 % for run-to-run */
    CHECK_NEAR(w->active_hi, 40000 * (1 - uhi + uhi / 32) * 1.03, 1e-3);
    CHECK_NEAR(w->time_ns, 100000 * w->active / 40000, 1e-6);
    CHECK_NEAR(a->w[AU_CURE_REPLICATE_4].busy, 8000, 1e-6);
    CHECK_NEAR(a->w[AU_CURE_REPLICATE_32].busy, 1000, 1e-6);
    CHECK_NEAR(a->w[AU_CURE_HASHED].busy, 1000 * au_random_max_load(32, 32), 1e-6);
    /* popc: same-word lanes fold (point) or none do (a range up to a's price as popc_inc) */
    w = &a->w[AU_CURE_POPC];
    CHECK_NEAR(w->busy, 900, 1e-6);
    CHECK_NEAR(w->busy_lo, 900, 1e-6);
    CHECK_NEAR(w->busy_hi, 28800, 1e-6);
    CHECK_NEAR(a->w[AU_CURE_AGGREGATE].busy_hi, 32000, 1e-6);
    /* the time's range holds the busy range's: its upper end is the time at busy_hi (S' / S = 0.9)
     * with U - 0.03; one_pass, without a busy range, keeps the network's */
    CHECK_NEAR(w->active_hi, 40000 * (1 - uhi + uhi * 0.9) * 1.03, 1e-3);
    CHECK_NEAR(a->w[AU_CURE_ONE_PASS].active_hi, 40000 * (1 - uhi + uhi / 32) * 1.03, 1e-3);
    CHECK_NEAR(a->w[AU_CURE_AGGREGATE].active_hi, 40000 * 1.03, 1e-3); /* nothing folds: T */
    CHECK(!a->w[AU_CURE_NATIVE].applies);                              /* no CAS loop */
    /* popc's 100 cycles less than one_pass's are within 1 % of T: one_pass is named */
    CHECK_EQ_INT(a->best, AU_CURE_ONE_PASS);
    CHECK_NEAR(a->saves, 40000 - a->w[AU_CURE_ONE_PASS].active, 1e-6);
    CHECK_NEAR(a->saves_ns, 100000 * a->saves / 40000, 1e-6);
    /* fewer copies leave more time */
    CHECK(a->w[AU_CURE_REPLICATE_2].active > a->w[AU_CURE_REPLICATE_4].active);
    CHECK(a->w[AU_CURE_REPLICATE_4].active > a->w[AU_CURE_ONE_PASS].active);
    free(l.adv);
}

/* A U within 0.03 of 0.975, the most measured on kernels that do nothing but shared atomics: the
 * unit is saturated, the rest of the kernel may hide entirely behind it, so the point takes none:
 * T' = T S' / S */
static void test_saturated(const au_table *t)
{
    au_launch l = launch(32, 32000 / 0.98, 0);
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv && l.adv->w[AU_CURE_REPLICATE_2].applies);
    if (l.adv)
        CHECK_NEAR(l.adv->w[AU_CURE_REPLICATE_2].active, 32000 / 0.98 / 2, 1e-3);
    free(l.adv);
    /* with loads that hit in L2 the point keeps half the delay of U / 0.975 (at most 0.999): one
     * warp, z = S (1 - u) / u */
    l = launch(32, 32000 / 0.98, 0);
    l.ctr.l2_hit_sectors = 4 * 132e3;
    l.ctr.have |= AU_C_L2_HIT;
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    double z = 0.5 * 32 * (1 - 0.999) / 0.999;
    if (l.adv)
        CHECK_NEAR(l.adv->w[AU_CURE_REPLICATE_2].active, 32000 / 0.98 * (z + 16) / (z + 32), 1e-3);
    free(l.adv);
}

/* Two warps: the network in closed form, x = 2 / (Z + S (1 + q1) + v S q1), q1 = S / (Z + S) */
static double two_warps(double Z, double S, double v)
{
    double q1 = S / (Z + S);
    return 2 / (Z + S * (1 + q1) + v * S * q1);
}

/* The delay that gives utilization u, v loads per job behind the queue */
static double two_warps_delay(double S, double u, double v)
{
    double lo = 0, hi = 1e9;
    for (int i = 0; i < 200; ++i) {
        double mid = (lo + hi) / 2;
        *(two_warps(mid, S, v) > u / S ? &lo : &hi) = mid;
    }
    return lo;
}

/* T' with that delay, at least floor */
static double two_warps_time_floor(double T, double S, double sp, double u, double v, double floor)
{
    double z = fmax(two_warps_delay(S, u, v), floor);
    return T * two_warps(z, S, v) / two_warps(z, sp, v);
}

static double two_warps_time(double T, double S, double sp, double u, double v)
{
    return two_warps_time_floor(T, S, sp, u, v, 0);
}

/* The lower end of the time also takes 3 loads per job waiting behind the unit's queue, whose wait
 * the cure removes too */
static void test_lsu_visits(const au_table *t)
{
    au_launch l = launch(32, 40000, 0);
    l.ctr.warps = 2;
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    const au_whatif *w = l.adv ? &l.adv->w[AU_CURE_ONE_PASS] : NULL;
    CHECK(w != NULL);
    if (!w)
        return;
    double u = 0.8 / 0.975, point = two_warps_time(40000, 32, 1, u, 0);
    double lsu = two_warps_time(40000, 32, 1, u, 3), uhi = two_warps_time(40000, 32, 1, 0.83 / 0.975, 0);
    CHECK_NEAR(w->active, point, 1e-3);
    CHECK(lsu < uhi);
    CHECK_NEAR(w->active_lo, fmin(lsu, uhi) * 0.97, 1e-3);
    free(l.adv);
}

/* With the L2-hit counter, the point and U's ends take its loads (sectors / 4 a job, at most 3)
 * waiting behind the unit's queue, their wait at most half of the rest of the kernel (the delay
 * at least half of that without them); the upper end also holds the network without them */
static void test_l2_visits(const au_table *t)
{
    double u = 0.8 / 0.975, uhi = 0.83 / 0.975, ulo = 0.77 / 0.975;
    for (int sectors = 0; sectors <= 40; sectors += 4) {
        au_launch l = launch(32, 40000, 0);
        l.ctr.warps = 2;
        l.ctr.l2_hit_sectors = 132e3 * sectors; /* per job */
        l.ctr.have |= AU_C_L2_HIT;
        CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
        const au_whatif *w = l.adv ? &l.adv->w[AU_CURE_ONE_PASS] : NULL;
        CHECK(w != NULL);
        if (!w)
            return;
        double v = fmin(sectors / 4.0, 3);
        double fl = v > 0 ? 0.5 : 0;
        double point = two_warps_time_floor(40000, 32, 1, u, v, fl * two_warps_delay(32, u, 0));
        double none = two_warps_time(40000, 32, 1, u, 0);
        double lo = fmin(two_warps_time_floor(40000, 32, 1, uhi, v, fl * two_warps_delay(32, uhi, 0)),
                         two_warps_time(40000, 32, 1, u, 3));
        double hi = fmax(two_warps_time_floor(40000, 32, 1, ulo, v, fl * two_warps_delay(32, ulo, 0)), none);
        CHECK_NEAR(w->active, point, 1e-3);
        CHECK(sectors == 0 ? fabs(point - none) < 1e-6 : point < none - 1);
        CHECK_NEAR(w->active_lo, fmin(lo, point) * 0.97, 1e-3);
        CHECK_NEAR(w->active_hi, fmin(fmax(hi, point), 40000) * 1.03, 1e-3);
        free(l.adv);
    }
}

static void test_nothing_to_cure(const au_table *t)
{
    /* one pass already: only popc_inc's cheaper pass applies, and saves too little to be named */
    au_launch l = launch(1, 40000, 0);
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv != NULL && l.adv->best == -1);
    for (int k = 0; l.adv && k < AU_CURE_COUNT; ++k)
        CHECK(l.adv->w[k].applies == (k == AU_CURE_POPC));
    if (l.adv)
        CHECK_NEAR(l.adv->w[AU_CURE_POPC].busy, 900, 1e-6);
    free(l.adv);
    /* clusters: the DSMEM path is not priced by the cures */
    l = launch(32, 40000, 0);
    l.ctr.cluster_size = 2;
    l.ctr.have |= AU_C_CLUSTER;
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv == NULL);
    /* no counters, no U: nothing */
    l = launch(32, 40000, 0);
    l.ctr.have &= ~AU_C_JOBS;
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv == NULL);
}

/* CAS-loop attempts (3 cycles each) become native one-pass jobs (1 cycle) */
static void test_native(const au_table *t)
{
    au_launch l = launch(1, 10000, 1);
    CHECK_EQ_INT(au_launch_eval(&l, t, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_NEAR(l.res.busy, 3000, 1e-6);
    CHECK(l.adv != NULL);
    if (!l.adv)
        return;
    /* each attempt a one-pass add job at most, one per 32 attempts at least, the point between */
    const au_whatif *w = &l.adv->w[AU_CURE_NATIVE];
    CHECK(w->applies);
    CHECK_NEAR(w->busy_hi, 1000, 1e-6);
    CHECK_NEAR(w->busy_lo, 1000 / 32.0, 1e-6);
    CHECK_NEAR(w->busy, 1000 / sqrt(32), 1e-6);
    /* the retries gone with their loop bodies: 1000 / sqrt(32) jobs of S'' = 1 cycle, each warp's
     * delay Z = S (1 - u) / u per job kept (one warp: T' = T (J' / J) (u / S) (Z + S'')) */
    double u = 0.3 / 0.975, z = 3 * (1 - u) / u;
    CHECK_NEAR(w->active, 10000 / sqrt(32) * (u / 3) * (z + 1), 1e-3);
    /* the range's ends: no attempt was a retry (every job left, of one cycle; with U - 0.03), or
     * 31 of 32 were (J / 32 jobs left) */
    double ulo = 0.27 / 0.975;
    CHECK_NEAR(w->active_hi, 10000 * (1 - ulo + ulo / 3) * 1.03, 1e-3);
    CHECK(w->active_lo > 0 && w->active_lo <= 10000 / 32.0 * (1 - u + u / 3) * 0.97 + 1e-9);
    CHECK(!l.adv->w[AU_CURE_ONE_PASS].applies && !l.adv->w[AU_CURE_POPC].applies);
    CHECK_EQ_INT(l.adv->best, AU_CURE_NATIVE);
    free(l.adv);
    /* a loop of ATOMS.CAS written by hand: the same */
    l = launch(1, 10000, 1);
    CHECK_EQ_INT(au_launch_eval(&l, t, "cas", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv && l.adv->w[AU_CURE_NATIVE].applies);
    if (l.adv)
        CHECK_NEAR(l.adv->w[AU_CURE_NATIVE].busy_hi, 1000, 1e-6);
    free(l.adv);
}

/* A warp's CAS loop over lanes on distinct words in random banks, drawn: each attempt loads the
 * lanes left (its wavefronts the most distinct words in one bank, 32-bit; per half-warp the most in
 * one bank pair, 64-bit), and its CAS settles one lane per bank (pair, per half).  Sums over warps
 * of attempts, load wavefronts and CAS passes. */
static void draw_loop(int width, int warps, double sum[3])
{
    unsigned long long x = 12345u;
    sum[0] = sum[1] = sum[2] = 0;
    for (int w = 0; w < warps; ++w) {
        int bank[32], left[32] = {0}, lanes = 32;
        for (int i = 0; i < 32; ++i) {                /* distinct words: only the bank (pair) matters */
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27; /* xorshift64* */
            bank[i] = (int)(((x * 2685821657736338717ull) >> 40) % (width == 32 ? 32u : 16u)) +
                      (width == 64 && i >= 16 ? 16 : 0);
            left[i] = 1;
        }
        while (lanes > 0) {
            int count[32] = {0}, most[2] = {0, 0}, taken[32] = {0};
            for (int i = 0; i < 32; ++i)
                if (left[i])
                    ++count[bank[i]];
            for (int b = 0; b < 32; ++b) {
                int h = width == 64 && b >= 16;
                most[h] = count[b] > most[h] ? count[b] : most[h];
            }
            sum[0] += 1, sum[1] += most[0] + most[1], sum[2] += (most[0] > 0) + (most[1] > 0);
            for (int i = 0; i < 32; ++i)
                if (left[i] && !taken[bank[i]])
                    taken[bank[i]] = 1, left[i] = 0, --lanes;
        }
    }
}

static void test_hashed_loop(void)
{
    double at, ld, cp, drawn[3];
    CHECK_EQ_INT(au_hashed_loop(48, &at, &ld, &cp), 0);
    for (int width = 32; width <= 64; width += 32) {
        CHECK_EQ_INT(au_hashed_loop(width, &at, &ld, &cp), 1);
        /* the constants the advisor prices with */
        CHECK_NEAR(at, width == 32 ? AU_HASHED_LOOP_32_ATTEMPTS : AU_HASHED_LOOP_64_ATTEMPTS, 1e-12);
        CHECK_NEAR(ld, width == 32 ? AU_HASHED_LOOP_32_LOAD_WF : AU_HASHED_LOOP_64_LOAD_WF, 1e-12);
        CHECK_NEAR(cp, width == 32 ? AU_HASHED_LOOP_32_CAS_PASSES : AU_HASHED_LOOP_64_CAS_PASSES, 1e-12);
        /* the process they describe, drawn for 20,000 warps: within 1 % */
        draw_loop(width, 20000, drawn);
        CHECK_NEAR(drawn[0] / 20000, at, 0.01 * at);
        CHECK_NEAR(drawn[1] / drawn[0], ld, 0.01 * ld);
        CHECK_NEAR(drawn[2] / drawn[0], cp, 0.01 * cp);
    }
    CHECK_NEAR(AU_HASHED_LOOP_32_ATTEMPTS, AU_RANDOM_MAX_LOAD_32, 1e-12);
}

/* CAS-loop attempts (3 cycles each) with their loops' entries counted (10 attempts per entry): the
 * pass cures keep one attempt per entry (hashed: 3.53), 0.15 more an attempt at the point and up
 * to one more at the upper end for other warps' races */
static void test_loop_entries(const au_table *t)
{
    au_launch l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 10;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, t, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv != NULL);
    if (!l.adv)
        return;
    const au_whatif *w = &l.adv->w[AU_CURE_ONE_PASS];
    CHECK(w->applies && l.adv->w[AU_CURE_AGGREGATE].applies);
    CHECK_NEAR(w->busy, 345, 1e-6); /* 100 entries per SM, 1.15 attempts of 3 cycles each */
    CHECK_NEAR(w->busy_lo, 300, 1e-6);
    CHECK_NEAR(w->busy_hi, 600, 1e-6);
    CHECK_NEAR(l.adv->w[AU_CURE_AGGREGATE].busy, 345, 1e-6);
    /* hashed: 3.53 attempts an entry, each of 2.35 load wavefronts and one CAS pass of 2, a cycle a
     * wavefront (the loop's price in the table, not the attempt's price now) */
    const double wf32 = AU_HASHED_LOOP_32_LOAD_WF + 2;
    CHECK_NEAR(l.adv->w[AU_CURE_HASHED].busy, 100 * AU_HASHED_LOOP_32_ATTEMPTS * 1.15 * wf32, 1e-6);
    CHECK_NEAR(l.adv->w[AU_CURE_HASHED].busy_lo, 100 * AU_HASHED_LOOP_32_ATTEMPTS * wf32, 1e-6);
    CHECK_NEAR(l.adv->w[AU_CURE_HASHED].busy_hi, 100 * (AU_HASHED_LOOP_32_ATTEMPTS + 1) * wf32, 1e-6);
    CHECK(!l.adv->w[AU_CURE_REPLICATE_4].applies && !l.adv->w[AU_CURE_POPC].applies);
    /* native: one job per entry, of one pass folded (popc_inc, 0.9 cycles) to the most lanes in one
     * bank, the attempts per entry less the races (10 / 1.15 passes of add, a cycle each) */
    const au_whatif *nv = &l.adv->w[AU_CURE_NATIVE];
    CHECK(nv->applies);
    CHECK_NEAR(nv->busy_lo, 100 * 0.9, 1e-6);
    CHECK_NEAR(nv->busy_hi, 100 * 10 / 1.15, 1e-6);
    CHECK_NEAR(nv->busy, sqrt(nv->busy_lo * nv->busy_hi), 1e-6);
    /* one warp, U = 0.3: the retries leave with their share of the rest, so the time falls with the
     * attempts (T / 10, 1.15 attempts an entry); the upper end keeps the rest whole, at most T */
    CHECK_NEAR(w->active, 1150, 1e-6);
    CHECK(w->active_lo <= w->active && w->active_hi > 2 * w->active && w->active_hi <= 10000 * 1.03 + 1e-9);
    /* native with entries: the retries gone, the rest of the kernel's work stays whole at the upper
     * end, as for the pass cures */
    CHECK(nv->active_lo <= nv->active && nv->active < nv->active_hi && nv->active_hi <= 10000 * 1.03 + 1e-9);
    free(l.adv);
    /* a 64-bit loop: hashed at the 64-bit figures, 3.45 attempts of 3.80 load wavefronts and 1.78
     * CAS passes of 2 */
    l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 10;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, t, "cast_spin64", &thr, AU_BUSY_SATURATED), AU_OK);
    if (l.adv) {
        const double wf64 = AU_HASHED_LOOP_64_LOAD_WF + 2 * AU_HASHED_LOOP_64_CAS_PASSES;
        CHECK_NEAR(l.adv->w[AU_CURE_HASHED].busy, 100 * AU_HASHED_LOOP_64_ATTEMPTS * 1.15 * wf64, 1e-6);
    }
    free(l.adv);
    /* a loop family the registry does not hold (its width unknown): no hashed price */
    l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 10;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, t, "cast_spin_mine", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(!l.adv || !l.adv->w[AU_CURE_HASHED].applies);
    free(l.adv);
    /* 1.1 attempts per entry: the point's races keep them all, nothing to buy from a pass cure */
    l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 1.1;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, t, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv && !l.adv->w[AU_CURE_ONE_PASS].applies && !l.adv->w[AU_CURE_HASHED].applies);
    free(l.adv);
    /* more entries than attempts (counts of different launches): no pass cure */
    l = launch(1, 10000, 1);
    l.ctr.loop_entries = 2 * 132e3;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, t, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv && !l.adv->w[AU_CURE_ONE_PASS].applies && l.adv->w[AU_CURE_NATIVE].applies);
    free(l.adv);
    /* a plain add launch: entries change nothing */
    l = launch(32, 40000, 0);
    l.ctr.loop_entries = 1000;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv && l.adv->w[AU_CURE_ONE_PASS].applies);
    if (l.adv)
        CHECK_NEAR(l.adv->w[AU_CURE_ONE_PASS].busy, 1000, 1e-6);
    free(l.adv);
}

/* The same CAS loop with its entries' loads counted and a table with load latencies: each entry
 * left keeps its loads' wait at the point (one L2 hit of 10 cycles and half a DRAM load of 20 per
 * entry: 20 cycles a job), the ends as without them; without the latencies, or without the load
 * counters, nothing changes. */
static void test_entry_loads(const au_table *t, const au_table *tl)
{
    au_launch l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 10;
    l.ctr.l2_hit_sectors = 4 * l.ctr.loop_entries;
    l.ctr.dram_read_bytes = 64 * l.ctr.loop_entries;
    l.ctr.have |= AU_C_LOOP_ENTRIES | AU_C_L2_HIT | AU_C_DRAM_READ;
    CHECK_NEAR(au_entry_load_cycles(tl, &l.ctr), 20, 1e-9);
    CHECK_NEAR(au_entry_load_cycles(t, &l.ctr), 0, 0);
    CHECK_EQ_INT(au_launch_eval(&l, tl, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv != NULL);
    if (!l.adv)
        return;
    /* one warp: T' = T (J' / J) (u / S) (z + dz + S') with J' / J = 1 / 10, S' = S = 3, z = S (1 - u) / u
     * (the L2 visits, 4 sectors per entry over 10 attempts, change the point little: checked by
     * the ends) */
    const double u = 0.3 / 0.975;
    const au_whatif *w = &l.adv->w[AU_CURE_ONE_PASS];
    au_launch b = launch(1, 10000, 1);
    b.ctr.loop_entries = l.ctr.loop_entries;
    b.ctr.l2_hit_sectors = l.ctr.l2_hit_sectors;
    b.ctr.have |= AU_C_LOOP_ENTRIES | AU_C_L2_HIT;
    CHECK_EQ_INT(au_launch_eval(&b, t, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK); /* no latencies */
    if (b.adv) {
        const au_whatif *v = &b.adv->w[AU_CURE_ONE_PASS];
        CHECK_NEAR(w->active - v->active, 1000 * (u / 3) * 20, 1.0);
        CHECK_NEAR(w->active_lo, v->active_lo, 1e-9);
        CHECK_NEAR(w->active_hi, v->active_hi, 1e-9);
        CHECK(w->active_lo < w->active && w->active < w->active_hi);
    }
    free(b.adv);
    free(l.adv);
    /* a DRAM counter far above what the rest can hold (another process's reads: the counter is the
     * GPU's): the point keeps at most the rest the upper end keeps, not more */
    l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 10;
    l.ctr.dram_read_bytes = 128e6 * l.ctr.loop_entries;
    l.ctr.have |= AU_C_LOOP_ENTRIES | AU_C_DRAM_READ;
    CHECK_EQ_INT(au_launch_eval(&l, tl, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    if (l.adv) {
        const au_whatif *v = &l.adv->w[AU_CURE_ONE_PASS];
        CHECK(v->active <= v->active_hi / 1.03 + 1e-6 && v->active > 2000);
    }
    free(l.adv);
    /* no load counters: no wait per entry, the point as before (1.15 attempts an entry) */
    l = launch(1, 10000, 1);
    l.ctr.loop_entries = 132e3 / 10;
    l.ctr.have |= AU_C_LOOP_ENTRIES;
    CHECK_EQ_INT(au_launch_eval(&l, tl, "cast_spin", &thr, AU_BUSY_SATURATED), AU_OK);
    if (l.adv)
        CHECK_NEAR(l.adv->w[AU_CURE_ONE_PASS].active, 1150, 1e-6);
    free(l.adv);
}

/* The aggregate cure's own work (docs/advisor.md, "Warp aggregation's own work"): a MATCH.ANY a
 * job at 2 cycles a distinct word, 12 of latency, over d words: 32 / a to 32, the point their
 * middle on a log scale.  One warp: T' = T (z + S' + 2 d + 10 d) / (z + S), so the MATCH adds
 * T u 12 d / S to the point, and the upper end (32 words) may be slower than T. */
static void test_aggregate_work(const au_table *t, const au_table *tm)
{
    au_launch l = launch(32, 40000, 0), m = launch(32, 40000, 0);
    CHECK_EQ_INT(au_launch_eval(&l, t, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK_EQ_INT(au_launch_eval(&m, tm, "add", &thr, AU_BUSY_SATURATED), AU_OK);
    CHECK(l.adv && m.adv);
    if (!l.adv || !m.adv)
        return;
    const au_whatif *w = &l.adv->w[AU_CURE_AGGREGATE], *v = &m.adv->w[AU_CURE_AGGREGATE];
    /* the busy time: one pass at the lower end, a at the upper, and at the point the expected most
     * of sqrt(32) ~ 6 words at random in 32 banks; the MATCH leaves it as it is */
    CHECK_NEAR(v->busy_lo, 1000, 1e-6);
    CHECK_NEAR(v->busy_hi, 32000, 1e-6);
    CHECK(v->busy > 1000 * 1.2 && v->busy < 1000 * 2);
    CHECK_NEAR(v->busy, w->busy, 1e-9);
    const double u = 0.8 / 0.975, d = sqrt(32.0);
    CHECK_NEAR(v->active - w->active, 40000 * u / 32 * 12 * d, 1.0);
    CHECK(v->active_hi > 40000 * 1.03);                             /* 32 words: slower than now */
    CHECK(v->active_lo > w->active_lo && v->active_lo < v->active); /* one word */
    CHECK_EQ_INT(l.adv->match_unpriced, 1);
    CHECK_EQ_INT(m.adv->match_unpriced, 0);
    /* the other cures add no work */
    CHECK_NEAR(v[AU_CURE_ONE_PASS - AU_CURE_AGGREGATE].active, w[AU_CURE_ONE_PASS - AU_CURE_AGGREGATE].active, 1e-9);
    free(l.adv);
    free(m.adv);
}

int main(void)
{
    const double lat[4] = {10, 20, 2, 12};
    au_table *t = make_table(NULL), *tl = make_table(lat);
    CHECK(t != NULL);
    if (!t)
        return 1;
    test_random_max_load();
    test_best();
    test_conflicted(t);
    test_saturated(t);
    test_lsu_visits(t);
    test_l2_visits(t);
    test_nothing_to_cure(t);
    test_native(t);
    test_hashed_loop();
    test_loop_entries(t);
    CHECK(tl != NULL);
    if (tl) {
        test_entry_loads(t, tl);
        test_aggregate_work(t, tl);
    }
    au_table_free(t);
    au_table_free(tl);
    return check_report("test_advisor");
}
