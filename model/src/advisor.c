/*
 * advisor.c - what each cure would buy a launch (docs/advisor.md): every class of its jobs priced
 * again with the table at the passes the cure leaves, the busy time B' that gives, and the kernel
 * time it leaves.  The counters say how many passes a job takes, not why (lanes on one word and
 * lanes on different words of one bank cost the same: docs/advisor.md, "What the counters cannot
 * tell"), so a cure that folds same-word lanes gets a range of B'.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* U of a launch whose warps all queue at the unit but that also loads its data: the histogram
 * example with every lane on one word reads 97.5 % (ramp-up and tail; kernels of atomics alone
 * read about 99.7 %, docs/validation.md).  The time model's network runs its unit at
 * U / AU_U_SATURATED, at most AU_U_NETWORK_MAX (docs/advisor.md, "Kernel time"). */
#define AU_U_SATURATED      0.975
#define AU_U_NETWORK_MAX    0.999
/* The error of U on the validation points (docs/validation.md): the time's range takes U this
 * much above and below. */
#define AU_U_ERROR          0.03
/* A launch's time from run to run and the time model's error on the advisor pairs
 * (docs/advisor.md, "Measured accuracy"): the time's range is this much wider on each side. */
#define AU_TIME_ERROR       0.03
/* Loads per job that may wait behind the unit's queue in the LSU pipe, for the lower end of the
 * time: what the advisor pairs on L2-resident inputs needed (docs/advisor.md, "Kernel time"). */
#define AU_LSU_VISITS       3.0
/* The share of the rest of the kernel (its delay per job without L2-hit loads waiting) that those
 * loads' wait behind the unit may take: the L2-resident advisor pairs' loads waited about twice
 * their time without the atomics (docs/advisor.md, "Kernel time"). */
#define AU_WAIT_SHARE       0.5
/* Sectors of one load request that the L2-hit counter counts: a warp's 32 coalesced 4-byte loads
 * fill one 128-byte line (docs/advisor.md, "Kernel time"). */
#define AU_SECTORS_PER_LOAD 4.0
/* Bytes of one load request from DRAM: four 32-byte sectors, a warp's coalesced 4-byte loads. */
#define AU_BYTES_PER_LOAD   128.0
/* Warps an SM holds at most (64 on every architecture since Volta). */
#define AU_MVA_MAX_WARPS    64
/* A cure that changes B by less than this share changes nothing worth a line. */
#define AU_CURE_MIN_SHARE   0.005
/* Attempts of a CAS loop beyond its own lanes' conflicts, per attempt: other warps' CAS on the
 * word between an attempt's load and its own.  The point of a cure priced by the loop's entries
 * takes this share more; its range, none to one more attempt per entry.  Set from the advisor's
 * k-means pairs under ncu, whose conflict-free variants made 1.06-1.16 attempts per entry for 1
 * and 4.02-4.18 for 3.53 (docs/advisor.md, "CAS loops with their entries"). */
#define AU_LOOP_RACES       0.15

static const char *const cure_names[AU_CURE_COUNT] = {
    "one_pass", "hashed", "replicate_2", "replicate_4", "replicate_8", "replicate_32", "aggregate", "popc", "native",
};

static const char *const cure_words[AU_CURE_COUNT] = {
    "one pass per job: no two lanes of a warp in one bank",
    "bins hashed or rotated: lanes in random banks",
    "2 copies with padding, lanes spread over them",
    "4 copies with padding, lanes spread over them",
    "8 copies with padding, lanes spread over them",
    "a copy per lane (32, padded): per-lane privatization",
    "warp pre-aggregation (__match_any_sync): one job per warp and distinct word",
    "increments with unused results (ATOMS.POPC.INC): same-word lanes fold",
    "CAS loops replaced by a native atomic (integer or fixed-point values)",
};

const char *au_cure_name(au_cure c)
{
    return (unsigned)c < AU_CURE_COUNT ? cure_names[c] : "";
}

const char *au_cure_words(au_cure c)
{
    return (unsigned)c < AU_CURE_COUNT ? cure_words[c] : "";
}

/* P(no bin holds more than k of `lanes` balls in `banks` bins) = lanes! / banks^lanes times the
 * coefficient of x^lanes in (sum_{j<=k} x^j / j!)^banks. */
static double p_max_at_most(int lanes, int banks, int k)
{
    double poly[AU_A_MAX + 1] = {1}, next[AU_A_MAX + 1], term[AU_A_MAX + 1];
    for (int j = 0; j <= lanes; ++j)
        term[j] = j <= k ? (j ? term[j - 1] / j : 1.0) : 0.0;
    for (int b = 0; b < banks; ++b) {
        for (int d = 0; d <= lanes; ++d) {
            next[d] = 0;
            for (int j = 0; j <= d; ++j)
                next[d] += poly[d - j] * term[j];
        }
        memcpy(poly, next, sizeof poly);
    }
    double p = poly[lanes];
    for (int i = 1; i <= lanes; ++i)
        p *= (double)i / banks;
    return p;
}

double au_random_max_load(int lanes, int banks)
{
    if (lanes <= 0 || banks <= 0 || lanes > AU_A_MAX)
        return 0;
    double e = 0;
    for (int m = 1; m <= lanes; ++m)
        e += 1 - p_max_at_most(lanes, banks, m - 1);
    return e;
}

/* One class of the launch's jobs as the cures see it. */
typedef struct cls {
    const char *family;
    au_family_kind kind;
    double busy, jobs;   /* per SM */
    double loop_entries; /* per SM, a CAS-loop class's entries where the launch has them (else 0) */
} cls;

/* The launch's CAS-loop entries per SM shared among its CAS-loop classes by their attempts (exact
 * with one such class, the usual case). */
static void share_entries(const au_launch *l, cls *out, size_t n)
{
    double attempts = 0;
    for (size_t i = 0; i < n; ++i)
        attempts += out[i].kind == AU_KIND_CAS_LOOP ? out[i].jobs : 0;
    if (!(l->ctr.have & AU_C_LOOP_ENTRIES) || !(attempts > 0) || !(l->ctr.jobs > 0))
        return;
    double per_sm = l->ctr.loop_entries * l->res.jobs / l->ctr.jobs;
    for (size_t i = 0; i < n; ++i)
        out[i].loop_entries = out[i].kind == AU_KIND_CAS_LOOP ? per_sm * out[i].jobs / attempts : 0;
}

/* The launch's classes: its opcode classes where the code priced it, else its one family. */
static size_t launch_classes(const au_launch *l, const char *family, cls *out)
{
    size_t n = 0;
    if (l->ops && (l->res.flags & AU_F_OPCODES) && l->ops->nclass) {
        double J = l->ctr.jobs > 0 ? l->ctr.jobs : 0;
        for (size_t c = 0; c < l->ops->nclass; ++c) {
            const au_class_share *s = &l->ops->cls[c];
            out[n++] =
                (cls){s->family, au_family_kind_of(s->family), s->busy, J > 0 ? l->res.jobs * s->jobs / J : 0, 0};
        }
    } else
        out[n++] = (cls){family, au_family_kind_of(family), l->res.busy, l->res.jobs, 0};
    share_entries(l, out, n);
    return n;
}

/* S(n, a, c) of a family at the launch's pricing queue length, with the launch's share of CAS jobs
 * in the queue, or none (cas_gone: a cure that replaces them all) (0 where the table cannot). */
static double service_c(const au_table *t, const char *family, const au_launch *l, au_busy_mode busy, double a,
                        int cas_gone)
{
    if (!au_table_has_family(t, family))
        return 0;
    double n = au_pricing_n(t, family, l->res.queue_len, busy);
    double share = l->ctr.jobs > 0 && !cas_gone ? fmin(fmax(l->ctr.cas_jobs / l->ctr.jobs, 0), 1) : 0;
    double c = au_family_is_cas_class(family) ? 0 : n * share, s;
    return au_table_interp(t, family, n, fmin(fmax(a, 1), AU_A_MAX), c, &s, NULL) == AU_OK ? s : 0;
}

static double service(const au_table *t, const char *family, const au_launch *l, au_busy_mode busy, double a)
{
    return service_c(t, family, l, busy, a, 0);
}

/* The passes a job keeps after cure k, for a plain or CAS job of a passes: *lo..*hi, the point
 * *lo unless said; 0 where the cure does not apply to such a job. */
static int passes_after(au_cure k, double a, double *lo, double *hi)
{
    static const double copies[] = {
        [AU_CURE_REPLICATE_2] = 2, [AU_CURE_REPLICATE_4] = 4, [AU_CURE_REPLICATE_8] = 8, [AU_CURE_REPLICATE_32] = 32};
    switch (k) {
    case AU_CURE_ONE_PASS: *lo = *hi = 1; break;
    case AU_CURE_HASHED: *lo = *hi = fmin(a, AU_RANDOM_MAX_LOAD_32); break;
    case AU_CURE_REPLICATE_2:
    case AU_CURE_REPLICATE_4:
    case AU_CURE_REPLICATE_8:
    case AU_CURE_REPLICATE_32: *lo = *hi = fmax(1, a / copies[k]); break;
    case AU_CURE_AGGREGATE:
    case AU_CURE_POPC:
        /* same-word lanes fold, different words of one bank do not: the counters cannot tell */
        *lo = 1, *hi = a;
        break;
    default: return 0;
    }
    return 1;
}

void au_aggregate_words(double a, double d[3])
{
    d[1] = fmax(1, ceil(AU_A_MAX / fmax(a, 1) - 1e-9)), d[2] = AU_A_MAX, d[0] = sqrt(d[1] * d[2]);
}

/* P(the most of `lanes` balls in one of `banks` bins is m) into p[0..lanes]. */
static void max_load_dist(int lanes, int banks, double *p)
{
    double below = 0;
    for (int m = 0; m <= lanes; ++m) {
        double at_most = p_max_at_most(lanes, banks, m);
        p[m] = fmax(at_most - below, 0), below = at_most;
    }
}

int au_hashed_loop(int width, double *attempts, double *load_wf, double *cas_passes)
{
    double p[AU_A_MAX + 1], most = 0, loads = 0, at = 0;
    int lanes = width == 32 ? 32 : width == 64 ? 16 : 0; /* lanes that share the banks */
    if (!lanes)
        return 0;
    max_load_dist(lanes, lanes, p);
    for (int m = 1; m <= lanes; ++m) /* M attempts of a bank's lanes, their loads M, M - 1, ..., 1 */
        most += m * p[m], loads += m * (m + 1) / 2.0 * p[m];
    if (width == 32) {
        *attempts = most, *load_wf = loads / most, *cas_passes = 1;
        return 1;
    }
    /* 64-bit words: two half-warps, each of 16 lanes over 16 bank pairs, the loop's attempts the
     * most of the two halves', each half's CAS a pass of its own while it has lanes left */
    double below = 0;
    for (int m = 0; m <= lanes; ++m) {
        double upto = below + p[m];
        at += m * (upto * upto - below * below), below = upto;
    }
    *attempts = at, *load_wf = 2 * loads / at, *cas_passes = 2 * most / at;
    return 1;
}

/* A CAS-loop class after a pass cure, from its loops' entries (docs/advisor.md, "CAS loops with
 * their entries"): the lanes' own retries go with their conflicts, each entry keeping p attempts,
 * AU_LOOP_RACES more an attempt at the point for other warps' races, which the counters do not tell
 * from the lanes' own, and up to one more at the upper end; never more than the launch's attempts
 * per entry.  one_pass, aggregate: a warp's lanes no longer share a word, p = 1, each attempt at
 * its class's price scaled as the table scales its passes.  hashed: the lanes on distinct words
 * in random banks, p and each attempt's wavefronts those of au_hashed_loop, priced as the table
 * prices an attempt of the loop (au_loop_service).  0 without entries, or for a cure that does not
 * spread a warp's lanes. */
static int loop_after(const au_table *t, const au_launch *l, au_busy_mode busy, const cls *x, au_cure k, double b[6])
{
    if (!(x->loop_entries > 0)) /* set by share_entries where the launch has them */
        return 0;
    double r = x->jobs / x->loop_entries; /* attempts per entry now */
    if (!(r >= 1))
        return 0; /* fewer attempts than entries: counts of different launches */
    double p = 1, s1 = 0, wf;
    const au_family_def *f = au_family_find(x->family);
    switch (k) {
    case AU_CURE_ONE_PASS:
    case AU_CURE_AGGREGATE: {
        double s0 = service(t, x->family, l, busy, l->res.a), sp = service(t, x->family, l, busy, 1);
        s1 = s0 > 0 ? x->busy / x->jobs * sp / s0 : 0;
        break;
    }
    case AU_CURE_HASHED: /* au_hashed_loop's figures (its sums take millions of operations) */
        if (!f || (f->width != 32 && f->width != 64) || !au_table_has_family(t, x->family))
            return 0;
        p = f->width == 32 ? AU_HASHED_LOOP_32_ATTEMPTS : AU_HASHED_LOOP_64_ATTEMPTS;
        wf = f->width == 32 ? AU_HASHED_LOOP_32_LOAD_WF + f->wf_per_pass * AU_HASHED_LOOP_32_CAS_PASSES
                            : AU_HASHED_LOOP_64_LOAD_WF + f->wf_per_pass * AU_HASHED_LOOP_64_CAS_PASSES;
        if (au_loop_service(t, x->family, au_pricing_n(t, x->family, l->res.queue_len, busy), wf, &s1, NULL) != AU_OK)
            return 0;
        break;
    default: return 0;
    }
    if (!(s1 > 0))
        return 0;
    double lo = fmin(p, r), pt = fmin(p * (1 + AU_LOOP_RACES), r), hi = fmin(p + 1, r);
    b[0] = x->loop_entries * pt * s1, b[1] = x->loop_entries * lo * s1, b[2] = x->loop_entries * hi * s1;
    b[3] = pt / r, b[4] = lo / r, b[5] = hi / r; /* the retries that are gone leave with their loop bodies */
    return 1;
}

/* Class x's busy time after cure k into b[0..2] (point, lo, hi), and b[3..5] the share of its
 * jobs left with each (1 but where retries vanish); 0 where k does not apply to it. */
static int class_after(const au_table *t, const au_launch *l, au_busy_mode busy, const cls *x, au_cure k, double b[6])
{
    b[3] = b[4] = b[5] = 1;
    double a = l->res.a, lo, hi;
    if (!(x->busy > 0) || !(x->jobs > 0))
        return 0;
    if (k == AU_CURE_NATIVE) {
        if (x->kind != AU_KIND_CAS_LOOP && x->kind != AU_KIND_CAS)
            return 0;
        double r = x->loop_entries > 0 ? x->jobs / x->loop_entries : 0;
        if (r >= 1) {
            /* with its entries (docs/advisor.md, "CAS loops with their entries"): one native job per
             * entry, of one pass at least (an increment whose same-word lanes fold, ATOMS.POPC.INC:
             * the cheaper family) and at most the most lanes in one bank, which the attempts per
             * entry less the point's races give (each attempt settles one lane per bank); the
             * point the middle on a log scale */
            const char *fold = au_table_has_family(t, "popc_inc") ? "popc_inc" : "add";
            double most = fmin(fmax(r / (1 + AU_LOOP_RACES), 1), AU_A_MAX);
            double slo = service_c(t, fold, l, busy, 1, 1), shi = service_c(t, "add", l, busy, most, 1);
            if (!(slo > 0) || !(shi > 0))
                return 0;
            b[1] = x->loop_entries * fmin(slo, shi), b[2] = x->loop_entries * shi, b[0] = sqrt(b[1] * b[2]);
            b[3] = b[4] = b[5] = 1 / r;
            return 1;
        }
        /* a CAS loop's attempts, retries of other warps' races included, become native jobs of one
         * pass per lane in a bank: at most one single-pass job per attempt, at least one per 32
         * attempts.  The loops' entries are not counted, so the point is the middle of that range
         * on a log scale (docs/advisor.md, "What the counters cannot tell"). */
        double s1 = service(t, "add", l, busy, 1);
        if (!(s1 > 0))
            return 0;
        b[2] = x->jobs * s1, b[1] = b[2] / AU_A_MAX, b[0] = sqrt(b[1] * b[2]);
        /* the attempts that were retries are gone, their loop bodies with them */
        b[3] = b[0] / b[2], b[4] = b[1] / b[2];
        return 1;
    }
    if (x->kind == AU_KIND_CAS_LOOP)
        return loop_after(t, l, busy, x, k, b);
    if ((x->kind != AU_KIND_PLAIN && x->kind != AU_KIND_CAS) || !passes_after(k, a, &lo, &hi))
        return 0;
    if ((k == AU_CURE_AGGREGATE || k == AU_CURE_POPC) && (x->kind != AU_KIND_PLAIN || !strcmp(x->family, "popc_inc")))
        return 0; /* already folded, or not an increment */
    const char *to = k == AU_CURE_POPC && au_table_has_family(t, "popc_inc") ? "popc_inc" : x->family;
    double s = x->busy / x->jobs, s0 = service(t, x->family, l, busy, a);
    double slo = service(t, to, l, busy, lo), shi = service(t, to, l, busy, hi);
    if (!(s0 > 0) || !(slo > 0) || !(shi > 0))
        return 0;
    /* the class's own price (its loads, its measured share) scaled as the table scales */
    b[0] = b[1] = x->jobs * s * slo / s0, b[2] = x->jobs * s * shi / s0;
    if (k == AU_CURE_AGGREGATE) { /* the point: the point's words at random in the 32 banks */
        double d[3];
        au_aggregate_words(a, d);
        double smid = service(t, to, l, busy, fmin(fmax(au_random_max_load((int)lround(d[0]), AU_A_MAX), 1), a));
        b[0] = smid > 0 ? x->jobs * s * smid / s0 : b[0];
    }
    return 1;
}

/* Throughput (jobs per cycle) of a closed network of N warps, each cycling between the unit (one
 * server, S cycles a job) and the rest of its work (a delay of Z cycles a job): exact mean value
 * analysis, linear between the whole numbers of warps around N.  v: other visits per job that wait
 * behind the unit's queue without work of their own (loads that share the LSU pipe with the
 * atomics), each the queue's S q cycles.  M: a second server's cycles a job (the aggregate cure's
 * MATCH.ANY; 0: none). */
static double mva_throughput(double N, double Z, double S, double v, double M)
{
    int hi = (int)ceil(fmin(fmax(N, 1), AU_MVA_MAX_WARPS));
    double q = 0, qm = 0, x = 0, x_lo = 0;
    for (int k = 1; k <= hi; ++k) {
        double r = S * (1 + q), rm = M * (1 + qm);
        x_lo = x;
        x = k / (Z + r + rm + v * S * q);
        q = x * r, qm = x * rm;
    }
    double f = fmin(fmax(N, 1), AU_MVA_MAX_WARPS) - (hi - 1);
    return hi > 1 ? x_lo + f * (x - x_lo) : x;
}

/* The delay per job that makes the network run at utilization u (0 where even Z = 0 cannot reach
 * it: the unit is saturated). */
static double mva_delay(double N, double S, double u, double v)
{
    double want = u / S, lo = 0, hi = S;
    if (mva_throughput(N, 0, S, v, 0) <= want)
        return 0;
    while (mva_throughput(N, hi, S, v, 0) > want && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 50; ++i) {
        double mid = (lo + hi) / 2;
        *(mva_throughput(N, mid, S, v, 0) > want ? &lo : &hi) = mid;
    }
    return (lo + hi) / 2;
}

/* The launch as a closed network of its N warps (docs/advisor.md, "Kernel time"): the unit serves
 * a job in S = B / J cycles, the rest of the kernel delays each warp z cycles a job, the z that
 * gives the measured U.  The loads that hit in L2 wait behind the unit's queue in the L1 data pipe
 * and get faster with it: v visits a job, the L2-hit sectors per job over AU_SECTORS_PER_LOAD (0
 * without the counter; loads from DRAM take their own latency).  Cases: the point (U), U + and -
 * AU_U_ERROR, U with AU_LSU_VISITS such loads a job (the lower end) and U with none (the upper
 * end: the counter gives sectors, not loads). */
enum { NET_POINT, NET_U_HI, NET_U_LO, NET_LSU, NET_NO_WAIT, NET_CASES };

typedef struct network {
    double N, J, T;
    double entry_wait; /* cycles a CAS-loop entry waits for its loads (au_entry_load_cycles) */
    double z[NET_CASES], x[NET_CASES], v[NET_CASES]; /* delays, the throughputs they give with S, visits */
} network;

/* Work a cure adds to each job of the launch: a second server's cycles (MATCH.ANY's throughput)
 * and a delay (the rest of its latency). */
typedef struct added_work {
    double server, delay;
} added_work;

/* Loads a job that wait behind the unit's queue: the L2-hit sectors per job in loads, at most
 * AU_LSU_VISITS (the lower end's). */
double au_l2_loads_per_job(double l2_hit_sectors, double jobs)
{
    if (!(jobs > 0) || !(l2_hit_sectors > 0))
        return 0;
    return fmin(l2_hit_sectors / jobs / AU_SECTORS_PER_LOAD, AU_LSU_VISITS);
}

static double l2_visits(const au_counters *c)
{
    return (c->have & AU_C_L2_HIT) ? au_l2_loads_per_job(c->l2_hit_sectors, c->jobs) : 0;
}

static void network_of(const au_launch *l, network *net)
{
    const au_result *r = &l->res;
    net->N = r->queue_len > 0 ? r->queue_len : 1, net->J = r->jobs, net->T = r->active;
    double S = r->busy / r->jobs, u = r->busy / r->active, v = l2_visits(&l->ctr);
    const double du[NET_CASES] = {0, AU_U_ERROR, -AU_U_ERROR, 0, 0};
    const double vi[NET_CASES] = {v, v, v, AU_LSU_VISITS, 0};
    /* a measured U of a kernel that loads its data is at most AU_U_SATURATED: the network's is U
     * over it.  z0: the delay without visits at each U (the point's, U + and - AU_U_ERROR), -1
     * where U gives none */
    double ui[NET_CASES], z0[NET_CASES];
    for (int i = 0; i < NET_CASES; ++i) {
        ui[i] = fmin((u + du[i]) / AU_U_SATURATED, AU_U_NETWORK_MAX);
        z0[i] = i <= NET_U_LO && ui[i] > 0 ? mva_delay(net->N, S, ui[i], 0) : -1;
    }
    for (int i = 0; i < NET_CASES; ++i) {
        /* a unit saturated within U's error hides the rest of the kernel whatever its size: the
         * point and the lower end then take none (z = 0), the upper end the z of U - AU_U_ERROR */
        int saturated = i != NET_U_LO && (u + AU_U_ERROR) / AU_U_SATURATED >= 1;
        net->v[i] = vi[i];
        if (saturated)
            net->z[i] = 0;
        else if (!(ui[i] > 0))
            net->z[i] = -1; /* no bound */
        else
            net->z[i] = vi[i] > 0 ? mva_delay(net->N, S, ui[i], vi[i]) : z0[i == NET_NO_WAIT ? NET_POINT : i];
        /* near saturation any split of the rest between the loads' wait and their own work fits
         * U: the L2-hit loads' wait takes at most AU_WAIT_SHARE of it (not the lower end's; a
         * saturated unit's z = 0 too gets that floor) */
        if (i != NET_LSU && net->v[i] > 0 && net->z[i] >= 0 && z0[i] >= 0)
            net->z[i] = fmax(net->z[i], (1 - AU_WAIT_SHARE) * z0[i]);
        net->x[i] = net->z[i] >= 0 ? mva_throughput(net->N, net->z[i], S, net->v[i], 0) : 0;
    }
}

/* The rest of a CAS loop's entry that its retries do not take with them when a cure removes them
 * (docs/advisor.md, "CAS loops with their entries"): the launch's loads per entry, those that hit
 * in L2 and those from DRAM, each at the table's latency of a lone load.  Cycles a warp waits per
 * entry; 0 without the entries, the table's latencies or both load counters. */
double au_entry_load_cycles(const au_table *t, const au_counters *c)
{
    const au_table_meta *m = au_table_get_meta(t);
    if (!(c->have & AU_C_LOOP_ENTRIES) || !(c->loop_entries > 0))
        return 0;
    double e = 0;
    if ((c->have & AU_C_L2_HIT) && c->l2_hit_sectors > 0 && m->l2_hit_latency_cycles > 0)
        e += c->l2_hit_sectors / AU_SECTORS_PER_LOAD * m->l2_hit_latency_cycles;
    if ((c->have & AU_C_DRAM_READ) && c->dram_read_bytes > 0 && m->dram_latency_cycles > 0)
        e += c->dram_read_bytes / AU_BYTES_PER_LOAD * m->dram_latency_cycles;
    return e / c->loop_entries;
}

/* T' of a busy time B' over jp jobs (jp < J where a cure removes retries): with each z kept,
 * S' = B' / J' gives the throughput X', and T' is T scaled by the throughputs, X / X', and by the
 * jobs, J' / J (X = u / S, the network's own: T' = T where B' = B).  keep: the retries leave
 * without the rest of the kernel's work, which stays whole (z J / J' a job: the work of a CAS loop's
 * entries, its loads and the rest, is not the retries'); else the retries take their share of it,
 * and dz more a job stays (the loads of the entries left, au_entry_load_cycles) but at the lower
 * end (U + AU_U_ERROR, the LSU visits).  add: work the cure adds to each job (the aggregate cure's
 * MATCH.ANY), which may make T' longer than T; without it T' <= T. */
static void time_after(const network *net, double bp, double jp, int keep, double dz, const added_work *add,
                       au_whatif *w)
{
    double t[NET_CASES], cap = add->server > 0 || add->delay > 0 ? INFINITY : net->T;
    for (int i = 0; i < NET_CASES; ++i) {
        double z = keep ? net->z[i] * net->J / jp : net->z[i] + (i == NET_U_HI || i == NET_LSU ? 0 : dz);
        t[i] = net->z[i] >= 0 ? fmin(cap, net->T * (jp / net->J) * net->x[i] /
                                              mva_throughput(net->N, z + add->delay, bp / jp, net->v[i], add->server))
                              : net->T;
    }
    /* the range also holds a launch's time from run to run and the model's error on the pairs */
    w->active = t[NET_POINT];
    w->active_lo = fmin(t[NET_POINT], fmin(t[NET_U_HI], t[NET_LSU])) * (1 - AU_TIME_ERROR);
    w->active_hi = fmin(fmax(t[NET_POINT], fmax(t[NET_U_LO], t[NET_NO_WAIT])), cap) * (1 + AU_TIME_ERROR);
}

static void price_cure(const au_table *t, const au_launch *l, au_busy_mode busy, const cls *x, size_t n,
                       const network *net, au_cure k, au_whatif *w)
{
    /* [0] the point, [1] the lower end, [2] the upper end: busy time and jobs after the cure */
    double b[6], sum[3] = {0, 0, 0}, jobs[3] = {l->res.jobs, l->res.jobs, l->res.jobs};
    int any = 0, keep = 0;
    double entries = 0; /* per SM, of the CAS-loop classes priced by their entries */
    double matched = 0; /* per SM, the jobs the aggregate cure gives a MATCH.ANY */
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < n; ++i) {
        int on = class_after(t, l, busy, &x[i], k, b);
        matched += on && k == AU_CURE_AGGREGATE && x[i].kind != AU_KIND_CAS_LOOP ? x[i].jobs : 0;
        for (int j = 0; j < 3; ++j) {
            sum[j] += on ? fmin(b[j], x[i].busy) : x[i].busy;
            jobs[j] -= on ? x[i].jobs * (1 - b[3 + j]) : 0;
        }
        any |= on && b[0] < x[i].busy * (1 - AU_CURE_MIN_SHARE);
        if (on && x[i].kind == AU_KIND_CAS_LOOP && x[i].loop_entries > 0 && x[i].jobs >= x[i].loop_entries) {
            /* priced by its entries */
            keep = 1;
            entries += x[i].loop_entries;
        }
    }
    /* jobs the classes do not hold (the generic or DSMEM share of the launch's B) stay */
    double rest = l->res.busy;
    for (size_t i = 0; i < n; ++i)
        rest -= x[i].busy;
    rest = fmax(rest, 0);
    if (!any || !(l->res.busy > 0))
        return;
    w->applies = 1;
    w->busy = sum[0] + rest, w->busy_lo = sum[1] + rest, w->busy_hi = sum[2] + rest;
    for (int j = 0; j < 3; ++j) /* a CAS loop's retries may be most of its jobs (entries known) */
        jobs[j] = fmax(jobs[j], l->res.jobs * 1e-6);
    /* the entries' own loads stay with the entries left (docs/advisor.md, "CAS loops with their
     * entries"): dz a job more at the point, never more than the upper end keeps of the rest (the
     * DRAM counter is the whole GPU's: another process's reads must not make the point slower than
     * the rest allows) */
    double dz = keep ? entries * net->entry_wait / jobs[0] : 0;
    if (dz > 0 && net->z[NET_U_LO] >= 0)
        dz = fmin(dz, fmax(net->z[NET_U_LO] * net->J / jobs[0] - net->z[NET_POINT], 0));
    /* the aggregate cure's own work (docs/advisor.md, "Warp aggregation's own work"): a MATCH.ANY
     * a job of the classes it folds, its SM cycles per distinct word at the point's and the ends'
     * words, the rest of its latency a delay */
    added_work add[3] = {{0, 0}, {0, 0}, {0, 0}};
    const au_table_meta *m = au_table_get_meta(t);
    if (matched > 0 && m->match_any_cycles_per_value > 0) {
        double d[3], per = m->match_any_cycles_per_value,
                     wait = fmax(m->match_any_latency_cycles_per_value - m->match_any_cycles_per_value, 0);
        au_aggregate_words(l->res.a, d);
        for (int j = 0; j < 3; ++j)
            add[j] = (added_work){matched / jobs[j] * per * d[j], matched / jobs[j] * wait * d[j]};
    }
    time_after(net, w->busy, jobs[0], 0, dz, &add[0], w);
    /* the time's range holds the busy time's too (what the counters cannot tell of the cure: lanes
     * on one word or on several of a bank, attempts that were retries): each end's own network.  A
     * CAS loop's retries priced by its entries leave with their share of the rest of the kernel's
     * work at the point; how much of it was theirs the counters cannot tell (near saturation any
     * share fits U), so the upper end keeps all of it (docs/advisor.md, "CAS loops with their
     * entries"). */
    au_whatif lo, hi;
    time_after(net, w->busy_lo, jobs[1], 0, 0, &add[1], &lo);
    time_after(net, w->busy_hi, jobs[2], keep, 0, &add[2], &hi);
    w->active_lo = fmin(w->active_lo, lo.active_lo), w->active_hi = fmax(w->active_hi, hi.active_hi);
    if (l->duration_ns > 0 && l->res.active > 0) {
        double ns = l->duration_ns / l->res.active;
        w->time_ns = w->active * ns, w->time_lo_ns = w->active_lo * ns, w->time_hi_ns = w->active_hi * ns;
    }
}

int au_best_cure(const double *t, double now)
{
    int best = -1;
    for (int k = 0; k < AU_CURE_COUNT; ++k)
        if (t[k] < now * (1 - AU_CURE_MIN_SHARE) && (best < 0 || t[k] < t[best] - 0.01 * now))
            best = k;
    return best;
}

int au_launch_advise(au_launch *l, const au_table *t, const char *family, au_busy_mode busy)
{
    free(l->adv);
    l->adv = NULL;
    const au_result *r = &l->res;
    if ((r->flags & (AU_F_UNUSABLE | AU_F_NO_ATOMICS | AU_F_UNPRICED_WAVEFRONTS)) || !(r->busy > 0) ||
        !(r->active > 0) || ((l->ctr.have & AU_C_CLUSTER) && l->ctr.cluster_size > 1))
        return AU_OK; /* nothing to cure, or DSMEM, whose cures the table does not price */
    cls x[AU_MAX_CLASSES];
    size_t n = launch_classes(l, family, x);
    au_advice *adv = calloc(1, sizeof *adv);
    if (!adv)
        return au_set_error(AU_E_NOMEM, "out of memory");
    double times[AU_CURE_COUNT];
    network net;
    network_of(l, &net);
    net.entry_wait = au_entry_load_cycles(t, &l->ctr);
    for (int k = 0; k < AU_CURE_COUNT; ++k) {
        au_whatif *w = &adv->w[k];
        price_cure(t, l, busy, x, n, &net, (au_cure)k, w);
        times[k] = w->applies ? w->active : r->active;
    }
    adv->best = au_best_cure(times, r->active);
    int loops = 0; /* CAS-loop classes priced by their entries */
    for (size_t i = 0; i < n; ++i)
        loops |= x[i].loop_entries > 0;
    if (loops) {
        const au_table_meta *m = au_table_get_meta(t);
        adv->entry_load_cycles = net.entry_wait;
        if (!(m->l2_hit_latency_cycles > 0) && !(m->dram_latency_cycles > 0))
            adv->entry_loads_unpriced = AU_ENTRY_NO_LATENCY;
        else if (!(l->ctr.have & (AU_C_L2_HIT | AU_C_DRAM_READ)))
            adv->entry_loads_unpriced = AU_ENTRY_NO_COUNTERS;
    }
    int folds = 0; /* classes the aggregate cure gives a MATCH.ANY */
    for (size_t i = 0; i < n; ++i)
        folds |= x[i].kind == AU_KIND_PLAIN && strcmp(x[i].family, "popc_inc") != 0;
    adv->match_unpriced =
        folds && adv->w[AU_CURE_AGGREGATE].applies && !(au_table_get_meta(t)->match_any_cycles_per_value > 0);
    if (adv->best >= 0) {
        adv->saves = r->active - adv->w[adv->best].active;
        adv->saves_ns = l->duration_ns > 0 ? l->duration_ns * adv->saves / r->active : 0;
    }
    l->adv = adv;
    return AU_OK;
}
