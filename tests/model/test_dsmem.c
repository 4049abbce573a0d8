/*
 * test_dsmem.c - DSMEM pricing from the dsmem counter set: with the
 * crossbar stall and active cycles and the remote requests, remote atomics whose warps' words
 * share a row and own-rank generic atomics are priced without a range, from what the counters
 * measured; the same launch measured with the cluster set keeps its range.  The counters are
 * those an H200 gave (per SM) for validation's ring and own-rank points (docs/model.md, "DSMEM").
 * Usage: test_dsmem tables/nvidia-h100.csv (a table with the dsmem families).
 */
#include "check.h"

#include "atomutil/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { SMS = 132 };

/* GPU-wide counters of a launch of G generic atomics per SM; the rest per job of an SM. */
static au_counters dsmem_launch(double G, double w, double rw, double xc, double T)
{
    au_counters c;
    memset(&c, 0, sizeof c);
    c.have = AU_C_REQUIRED | AU_C_DSMEM | AU_C_CLUSTER | AU_C_DSHARED_SECTORS;
    c.active_cycles = T * G;
    c.warps = 32;
    c.generic_jobs = G * SMS;
    c.wavefronts = w * G * SMS;
    c.dshared_wavefronts = rw * G * SMS;
    c.dshared_xbar = xc * G * SMS;
    c.dshared_sectors = c.dshared_sectors_atom = G * SMS;
    c.cluster_size = 2;
    return c;
}

static void with_exact(au_counters *c, double stalled, double active, double requests)
{
    double G = c->generic_jobs;
    c->have |= AU_C_DSMEM_EXACT;
    c->xbar_stalled = stalled * G;
    c->xbar_active = active * G;
    c->dshared_requests = requests * G;
}

/* U of a ring launch of one-word requests (32 dshared wavefronts, 64 xbar cycles, one local
 * wavefront and one request per job) with `stalled` cycles per job and T cycles per job. */
static au_result ring_word(const au_table *t, double stalled, double T, int exact)
{
    au_counters c = dsmem_launch(2560, 1, 32, 64, T);
    if (exact)
        with_exact(&c, stalled, 64, 1);
    au_result r;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    return r;
}

static void test_row(const au_table *t)
{
    /* saturated, every warp's word in one 128-byte row: 161.3 cycles stalled per job */
    au_result r = ring_word(t, 161.3, 243.5, 0);
    CHECK(r.flags & AU_F_DSMEM_ROW_RANGE); /* the cluster set: the rows are not known */
    double own = r.util, row_hi = r.util_hi;
    CHECK(own < 0.5 && row_hi > 0.9);
    r = ring_word(t, 161.3, 243.5, 1);
    CHECK(r.flags & AU_F_DSMEM);
    CHECK(!(r.flags & (AU_F_DSMEM_ROW_RANGE | AU_F_DSMEM_LOCAL_ESTIMATED | AU_F_RANGE)));
    CHECK(fabs(r.util - row_hi) < 1e-9); /* the row's price */
    CHECK(r.util >= (64 + 161.3) / 243.5 && r.util < 1.05);
    CHECK_EQ_INT(r.verdict, AU_VERDICT_BOUND);
    /* at 72 % of the path the stalls are few (5.55 cycles per job) but say the same */
    r = ring_word(t, 5.55, 314.3, 1);
    CHECK(fabs(r.util - row_hi * 243.5 / 314.3) < 1e-9 && !(r.flags & AU_F_RANGE));
    /* a word per warp in its own row: 0.46 cycles stalled per job at 35 %; saturated, 43.7 */
    r = ring_word(t, 0.46, 312.5, 1);
    CHECK(fabs(r.util - own * 243.5 / 312.5) < 1e-9);
    r = ring_word(t, 43.7, 109.7, 1);
    CHECK(r.util > 0.97 && r.util < 1.05); /* the measured busy time, not the row's price */
}

static void test_own_rank(const au_table *t)
{
    /* own rank, 32 lanes on one word: 32 local wavefronts per job, nothing sent; 32.4 cycles */
    au_counters c = dsmem_launch(18944, 32, 0, 0, 32.4);
    c.dshared_sectors = c.dshared_sectors_atom = 0;
    au_result r;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    au_counters cl = c;
    cl.have &= ~(unsigned)(AU_C_WAVEFRONTS);
    CHECK_EQ_INT(au_model_eval(t, "add", &cl, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.flags & AU_F_DSMEM_LOCAL_ESTIMATED); /* the cluster set: the passes are not counted */
    with_exact(&c, 0, 0, 0);
    CHECK_EQ_INT(au_model_eval(t, "add", &c, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(!(r.flags & (AU_F_DSMEM_LOCAL_ESTIMATED | AU_F_RANGE)));
    CHECK(r.util > 0.9 && r.util < 1.1); /* 32 passes of about a cycle each */
    CHECK(r.util_remote == 0);
    /* half the jobs sent to another SM with distinct words (one local wavefront each): the other
     * half keeps its 32 */
    au_counters h = dsmem_launch(18944, 16.5, 0.5, 4.5, 40);
    with_exact(&h, 0, 4.5, 0.5);
    CHECK_EQ_INT(au_model_eval(t, "add", &h, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(!(r.flags & AU_F_RANGE));
    CHECK(r.util_local > 0.35 && r.util_local < 0.45 && r.util_remote < 0.25);
}

/* The table of argv[1] with a dsmem_hot family (clusters of 2) of S(n, a) = 40 + a cycles. */
static au_table *with_hot(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 23];
    size_t len = fread(buf, 1, sizeof buf - 4096, f);
    fclose(f);
    for (int n = 1; n <= 32; n *= 2)
        for (int a = 1; a <= 32; a *= 2)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "dsmem_hot,%d,%d,0,%d,%d,%d,0\n", n, a, 40 + a, 40 + a,
                                    40 + a);
    au_table *t = NULL;
    CHECK(au_table_parse(path, buf, len, &t) == AU_OK);
    return t;
}

/* Every block of each cluster of 2 on rank 0's word (the cluster histogram of one value): 132
 * blocks of 7680 one-word jobs, half of them remote; rank 0's SM made the local wavefronts. */
static au_counters hot_launch(double blocks, double w_max, double T_max)
{
    au_counters c = dsmem_launch(7680, 24, 16, 32, 120);
    with_exact(&c, 10, 32, 0.5);
    c.have |= AU_C_WAVEFRONTS_MAX | AU_C_ACTIVE_MAX;
    c.wavefronts_max = w_max;
    c.active_max = T_max;
    c.blocks = blocks;
    return c;
}

static void test_hot_receiver(const char *path)
{
    au_table *t = with_hot(path);
    if (!t)
        return;
    /* 32 dshared wavefronts per request: S(hot, 32, 32) = 72 cycles per job of the cluster */
    const double want = 2 * 7680 * 72.0 / 939000;
    au_counters c = hot_launch(SMS, 409000, 939000);
    au_result r, plain;
    CHECK_EQ_INT(au_model_eval(t, "add", &c, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util, want, 1e-9);
    CHECK_NEAR(r.util_busiest, want, 1e-9);
    CHECK_NEAR(r.util_hot, want, 1e-9);
    CHECK_NEAR(r.busy / r.active, want, 1e-9);
    CHECK(!(r.flags & AU_F_RANGE) && (r.flags & AU_F_DSMEM) && (r.flags & AU_F_DSMEM_HOT));
    /* without the grid, or with the wavefronts even (a ring), it is priced as before */
    au_counters no_grid = hot_launch(0, 409000, 939000);
    CHECK_EQ_INT(au_model_eval(t, "add", &no_grid, SMS, NULL, AU_BUSY_SATURATED, &plain), AU_OK);
    CHECK(fabs(plain.util - want) > 0.05);
    CHECK(plain.util_hot == 0 && !(plain.flags & (AU_F_DSMEM_HOT | AU_F_DSMEM_HOT_UNCALIBRATED)));
    /* two blocks per SM: an SM may have been a receiver and a sender in turn */
    au_counters waves = hot_launch(2 * SMS, 409000, 939000);
    CHECK_EQ_INT(au_model_eval(t, "add", &waves, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(r.util_hot == 0 && fabs(r.util - want) > 0.05);
    au_counters even = hot_launch(SMS, c.wavefronts / SMS, 939000);
    CHECK_EQ_INT(au_model_eval(t, "add", &even, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK_NEAR(r.util, plain.util, 1e-9);
    /* clusters of 4: no hot family of that size in the table */
    au_counters c4 = hot_launch(SMS, 409000, 939000);
    c4.cluster_size = 4;
    c4.wavefronts_max = 700000; /* 0.95 of a cluster of 4's wavefronts */
    c4.active_cycles *= 4, c4.active_max *= 4;
    CHECK_EQ_INT(au_model_eval(t, "add", &c4, SMS, NULL, AU_BUSY_SATURATED, &r), AU_OK);
    CHECK(fabs(r.util - want / 2) > 0.05);
    /* ... so the receiver's U is not known: the mean SM's, with a range to 100 % */
    CHECK((r.flags & AU_F_DSMEM_HOT_UNCALIBRATED) && (r.flags & AU_F_DSMEM_HOT) && r.util_hot == 0);
    CHECK(r.util_hi == 1 && r.util_lo == r.util && r.util < 0.8 && r.verdict == AU_VERDICT_UNCERTAIN);
    au_table_free(t);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    au_table *t = NULL;
    CHECK(au_table_load(argv[1], &t) == AU_OK);
    if (!t)
        return 1;
    test_row(t);
    test_own_rank(t);
    au_table_free(t);
    test_hot_receiver(argv[1]);
    return check_report("test_dsmem");
}
