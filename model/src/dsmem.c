/*
 * dsmem.c - pricing of distributed shared memory (thread block cluster) atomics from the cluster
 * counter set (docs/model.md, "DSMEM"): the remote path of the sending SM and the local unit, each
 * priced by the dsmem families of the table.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

const char *au_dsmem_remote_family(const au_table *t, double cluster_size)
{
    size_t nf;
    const au_family_def *f = au_families(&nf);
    const char *best = NULL;
    double dist = 0;
    for (size_t i = 0; i < nf; ++i) {
        if (f[i].kind != AU_KIND_DSMEM || f[i].shift <= 0 || f[i].row || !au_table_has_family(t, f[i].name))
            continue;
        double d = fabs(log2(cluster_size > 1 ? cluster_size : 2) - log2(f[i].cluster));
        if (!best || d < dist)
            best = f[i].name, dist = d;
    }
    return best;
}

const char *au_dsmem_hot_family(const au_table *t, double cluster_size)
{
    size_t nf;
    const au_family_def *f = au_families(&nf);
    for (size_t i = 0; i < nf; ++i)
        if (f[i].kind == AU_KIND_DSMEM && f[i].shift < 0 && f[i].cluster == (int)cluster_size &&
            au_table_has_family(t, f[i].name))
            return f[i].name;
    return NULL;
}

/* S of a dsmem family at the pricing n, c = 0. */
static int dsmem_s(const au_table *t, const char *family, double N, au_busy_mode busy, double a, double *s)
{
    double n = au_pricing_n(t, family, N, busy);
    au_flags fl = 0;
    return au_table_interp(t, family, n, a, 0, s, &fl);
}

/* The counted ATOMS of a launch without local wavefronts (cluster set) were priced at one pass:
 * *scale = S(add, n, 32) / S(add, n, 1), the factor of their busy time at 32 passes; 1 when their
 * passes were counted or there are none. */
static int atoms_upper_scale(const au_table *t, const au_result *res, int have_w, double N, au_busy_mode busy,
                             double *scale)
{
    *scale = 1;
    if (have_w || !(res->jobs > 0) || !au_table_has_family(t, "add"))
        return AU_OK;
    double s1, s32;
    int rc;
    if ((rc = dsmem_s(t, "add", N, busy, 1, &s1)) || (rc = dsmem_s(t, "add", N, busy, AU_A_MAX, &s32)))
        return rc;
    *scale = s32 / s1;
    return AU_OK;
}

/* A launch without clusters measured with the cluster set (a quiet kernel kept there,
 * docs/counters.md, "Quiet kernels") that made G generic atomics per SM: nothing went to other
 * SMs, and whether they went to global memory (not this unit's work) or to its own shared memory
 * no counter of the set says.  The standard set counts generic atomics on shared memory in its
 * wavefronts, and this kernel's last launch had none, so U's estimate leaves them out (global);
 * its range goes up to all of them as one-word local jobs of 32 passes, the counted ATOMS at 32
 * passes too.  The table has the dsmem_local family (au_dsmem_apply checked). */
static int generic_no_cluster(const au_table *t, double G, double N, double T, int have_w, au_busy_mode busy,
                              const au_thresholds *thr, au_result *res)
{
    double s_hi, scale;
    int rc;
    if ((rc = dsmem_s(t, "dsmem_local", N, busy, AU_A_MAX, &s_hi)) ||
        (rc = atoms_upper_scale(t, res, have_w, N, busy, &scale)))
        return rc;
    double b_atoms = res->jobs > 0 ? res->busy : 0;
    res->util_lo = res->util = b_atoms / T;
    res->util_hi = (b_atoms * scale + G * s_hi) / T;
    res->flags &= ~(AU_F_NO_ATOMICS | AU_F_UNPRICED_WAVEFRONTS);
    res->flags |= AU_F_GENERIC_SPACE | (scale > 1 ? AU_F_DSMEM_LOCAL_ESTIMATED : 0u);
    au_range_finish(res, thr);
    return AU_OK;
}

/* The atomics' share of the DSMEM traffic (the rest: remote loads and stores, as library kernels
 * with clusters make without any atomic), from the sectors when counted: *f of the sectors and so
 * of the wavefronts (same lane pattern, same wavefronts per sector), and of the interface's cycles
 * *f_x = 2f / (1 + f): an atomic request keeps it about twice as long per sector as a load or a
 * store (2.0-2.25 against 1.05-1.25 cycles on the H100; docs/model.md, "DSMEM").
 * Returns 1 for a mixed launch, whose range spans the cycles' share from f to all of them. */
static int atomic_share(const au_counters *gpu, au_result *res, double *f, double *f_x)
{
    *f = *f_x = 1;
    if ((gpu->have & AU_C_DSHARED_SECTORS) != AU_C_DSHARED_SECTORS || !(gpu->dshared_sectors > 0))
        return 0;
    *f = fmin(fmax(gpu->dshared_sectors_atom / gpu->dshared_sectors, 0), 1);
    if (*f < AU_DSMEM_ALL_ATOMIC)
        res->flags |= AU_F_DSMEM_OTHER_TRAFFIC;
    if (*f <= 1 - AU_DSMEM_ALL_ATOMIC)
        *f = 0;
    *f_x = 2 * *f / (1 + *f);
    return *f > 0 && *f < AU_DSMEM_ALL_ATOMIC;
}

/* The DSMEM path's busy cycles of the atomics per SM and their range. */
typedef struct {
    double b, lo;          /* the estimate; the low end (mixed traffic: the atomics' sectors' share) */
    double hi_row, hi_all; /* the high end by the rows alone; by the rows and mixed traffic */
} remote_busy;

/* Whether the one-word requests of a launch measured with the dsmem set share their receiver's rows
 * (docs/model.md, "DSMEM"): the cycles its requests were stalled, read as the waiting time of an
 * M/D/1 queue at the requests' rate lam, give that queue's service time s (lam s^2 / (2 (1 -
 * lam s)) = stall per request); a receiver that serializes the warps' words of one row serves
 * slower than one that does not, at any load (H100, H200: s 52-61 cycles against 13-33 for
 * every other lane pattern at 3-72 % of the path; saturated 154-167 against 8-84).  The row's
 * price must fit the active cycles (at saturation the other patterns stall as much). */
static int rows_shared(double requests, double stalled, double T, double b_row)
{
    if (!(requests > 0) || !(stalled > 0) || !(T > 0) || b_row > AU_DSMEM_ROW_FIT * T)
        return 0;
    double lam = requests / T, w = stalled / requests;
    double s = (-w * lam + sqrt(w * w * lam * lam + 2 * w * lam)) / lam;
    return s >= AU_DSMEM_ROW_SERVICE;
}

/* From the remote family's costs: the sending path's xbar cycles at the distinct-word request's
 * rate, the receiving unit's serialized wavefronts at the one-word request's rate per wavefront.
 * With the dsmem set's counters the row question is settled (rows_shared) and the path's measured
 * busy time (the interface's active cycles plus its stalls behind the receivers, DSMEM's share of
 * them by active cycles: each request's cost at saturation, docs/model.md) is the floor: no range.
 * Without them same-word lanes get the range from the row family's cost.  AU_OK or an error. */
static int remote_path(const au_table *t, const au_counters *gpu, double k, const char *fr, double N, au_busy_mode busy,
                       double f, double f_x, int mixed, double T, remote_busy *rb)
{
    double RW_all = gpu->dshared_wavefronts * k, XC_all = gpu->dshared_xbar * k, RW = RW_all * f, XC = XC_all * f_x;
    int rc;
    double r1, r32, row32 = 0;
    int row = au_table_has_family(t, "dsmem_remote_row");
    if ((rc = dsmem_s(t, fr, N, busy, 1, &r1)) || (rc = dsmem_s(t, fr, N, busy, AU_A_MAX, &r32)) ||
        (row && (rc = dsmem_s(t, "dsmem_remote_row", N, busy, AU_A_MAX, &row32))))
        return rc;
    double x1 = r1 / AU_DSMEM_XBAR_PER_REQUEST;
    rb->b = fmax(XC * x1, RW * r32 / AU_A_MAX);
    /* mixed traffic: the atomics' cycles from their sectors' share (low) to all (high) */
    rb->lo = fmax(XC_all * f * x1, RW * r32 / AU_A_MAX);
    double hi_mixed = mixed ? fmax(XC_all * x1, RW_all * r32 / AU_A_MAX) : rb->b;
    double b_row = row ? fmax(rb->b, fmax(XC * x1, RW * row32 / AU_A_MAX)) : rb->b;
    if ((gpu->have & AU_C_DSMEM_EXACT) == AU_C_DSMEM_EXACT && gpu->xbar_active > 0) {
        double stalled = gpu->xbar_stalled * k * fmin(gpu->dshared_xbar / gpu->xbar_active, 1);
        double requests = gpu->dshared_requests * k;
        if (row && RW_all >= AU_DSMEM_ROW_WAVEFRONTS * requests && rows_shared(requests, stalled, T, b_row))
            rb->b = b_row;
        double measured = XC_all + stalled;
        rb->b = fmax(rb->b, measured * f_x);
        rb->lo = fmax(rb->lo, measured * f);
        rb->hi_row = rb->b;
        rb->hi_all = mixed ? fmax(hi_mixed, measured) : rb->b;
        return AU_OK;
    }
    /* same-word lanes serialize at the receiver, and more so when the warps' words share one
     * 128-byte row (H100: 111 against 240 cycles per one-word job at n = 32); these counters are
     * the same for both, so with the row family the serialized term gets its upper end from it */
    rb->hi_row = b_row;
    rb->hi_all = fmax(hi_mixed, row && mixed ? fmax(XC_all * x1, RW_all * row32 / AU_A_MAX) : b_row);
    return AU_OK;
}

/* The local unit's busy cycles per SM (*b, range *lo..*hi): the counted ATOMS as priced (at one
 * pass when their wavefronts were not counted), plus the generic jobs that did not go to another
 * SM, at the dsmem_local family, by their passes where the local wavefronts are counted (the
 * standard or the dsmem set), else from the remote requests' wavefronts per request in a range of
 * 1..32 passes.  Remote requests: counted (dsmem set), else at most one per
 * AU_DSMEM_XBAR_PER_REQUEST xbar cycles. */
static int local_unit(const au_table *t, const au_counters *gpu, double k, double RW, double XC, double N,
                      au_busy_mode busy, const au_result *res, double *b, double *lo, double *hi)
{
    double G = gpu->generic_jobs * k;
    int have_w = (gpu->have & AU_C_WAVEFRONTS) != 0;
    double requests = (gpu->have & AU_C_DSHARED_REQ_ATOM) ? fmin(G, gpu->dshared_requests * k)
                                                          : fmin(G, XC / AU_DSMEM_XBAR_PER_REQUEST);
    double j_local = fmax(G - requests, 0);
    double a_pt, a_lo = 1, a_hi = AU_A_MAX;
    if (have_w) {
        /* every remote request takes one local wavefront too (its sender's, the H100's counters) */
        double w_local = gpu->wavefronts * k - requests - (res->jobs > 0 ? res->jobs * (res->a > 0 ? res->a : 1) : 0);
        a_pt = j_local > 0 ? w_local / j_local : 1;
        a_pt = fmin(fmax(a_pt, 1), AU_A_MAX);
        a_lo = a_hi = a_pt;
    } else {
        a_pt = requests > 0 ? RW / requests : 1;
        a_pt = fmin(fmax(a_pt, 1), AU_A_MAX);
    }
    int rc;
    double s_pt, s_lo, s_hi, scale;
    if ((rc = dsmem_s(t, "dsmem_local", N, busy, a_pt, &s_pt)) ||
        (rc = dsmem_s(t, "dsmem_local", N, busy, a_lo, &s_lo)) ||
        (rc = dsmem_s(t, "dsmem_local", N, busy, a_hi, &s_hi)) ||
        (rc = atoms_upper_scale(t, res, have_w, N, busy, &scale)) != AU_OK)
        return rc;
    double b_atoms = res->jobs > 0 ? res->busy : 0;
    *b = b_atoms + j_local * s_pt;
    *lo = b_atoms + j_local * s_lo;
    *hi = b_atoms * scale + j_local * s_hi;
    return AU_OK;
}

/* A hot receiver (docs/model.md, "DSMEM"): a launch measured with the dsmem set, of at most one
 * block per SM (the grid), whose DSMEM traffic is atomics only and whose busiest SM made at least
 * AU_DSMEM_HOT_SHARE of its cluster's local wavefronts: that SM serves every job of its cluster.
 * 0 when the launch is not one; 1 when it is, *u then that SM's U with the table's hot family of
 * the launch's cluster size (C G / blocks generic jobs at S(hot, n, a), a the dshared wavefronts
 * per remote request, over the longest SM active time), or 0 without such a family; an error
 * (AU_E_*, below 0). */
static int hot_receiver(const au_table *t, const au_counters *gpu, int sm_count, double N, au_busy_mode busy, double *u)
{
    const unsigned need = AU_C_DSMEM_EXACT | AU_C_CLUSTER | AU_C_WAVEFRONTS | AU_C_WAVEFRONTS_MAX;
    *u = 0;
    /* more blocks than SMs: an SM may host a receiver and a sender in turn, so its counts do not
     * say how many clusters it served; such launches are priced by the mean SM */
    if ((gpu->have & need) != need || !(gpu->blocks > 0) || gpu->blocks > sm_count || gpu->cluster_size < 2 ||
        !(gpu->wavefronts > 0) || !(gpu->dshared_requests > 0) || !(gpu->generic_jobs > 0))
        return 0;
    double C = gpu->cluster_size, cluster_wf = C * gpu->wavefronts / gpu->blocks;
    if (gpu->wavefronts_max < AU_DSMEM_HOT_SHARE * cluster_wf)
        return 0;
    const char *fh = au_dsmem_hot_family(t, C);
    double T = (gpu->have & AU_C_ACTIVE_MAX) && gpu->active_max > 0 ? gpu->active_max : gpu->active_cycles;
    if (!fh || !(T > 0))
        return 1;
    double a = fmin(fmax(gpu->dshared_wavefronts / gpu->dshared_requests, 1), AU_A_MAX), s;
    int rc = dsmem_s(t, fh, N, busy, a, &s);
    if (rc != AU_OK)
        return rc;
    *u = C * gpu->generic_jobs / gpu->blocks * s / T;
    return 1;
}

/* No DSMEM traffic: without the local wavefronts (cluster set) the counted ATOMS were priced at
 * one pass: their passes are unknown, so U gets a range. */
static int no_dsmem_traffic(const au_table *t, double N, int have_w, au_busy_mode busy, const au_thresholds *thr,
                            au_result *res)
{
    double hi;
    int rc = atoms_upper_scale(t, res, have_w, N, busy, &hi);
    if (rc == AU_OK && hi > 1) {
        res->util_lo = res->util;
        res->util_hi = res->util * hi;
        res->flags |= AU_F_DSMEM_LOCAL_ESTIMATED;
        au_range_finish(res, thr);
    }
    return rc;
}

int au_dsmem_apply(const au_table *t, const au_counters *gpu, int sm_count, const au_thresholds *thr, au_busy_mode busy,
                   au_result *res)
{
    if (!t || !gpu || !res || sm_count <= 0)
        return au_set_error(AU_E_INVAL, "au_dsmem_apply: invalid argument");
    if ((gpu->have & AU_C_DSMEM) != AU_C_DSMEM || (res->flags & AU_F_MISSING) || !(res->active > 0))
        return AU_OK;
    double k = 1.0 / sm_count;
    double G = gpu->generic_jobs * k, RW_all = gpu->dshared_wavefronts * k, XC_all = gpu->dshared_xbar * k;
    double f, f_x;
    int mixed = atomic_share(gpu, res, &f, &f_x);
    double RW = RW_all * f, XC = XC_all * f_x;
    double T = res->active, N = res->queue_len > 0 ? res->queue_len : gpu->warps;
    int have_w = (gpu->have & AU_C_WAVEFRONTS) != 0;
    if (!(G > 0) && !(RW > 0) && !(XC > 0))
        return no_dsmem_traffic(t, N, have_w, busy, thr, res);
    /* a launch without clusters kept in the cluster set: only the local family prices it */
    int kept = (gpu->have & AU_C_CLUSTER) && gpu->cluster_size <= 1 && !have_w && G > 0;
    const char *fr = au_dsmem_remote_family(t, (gpu->have & AU_C_CLUSTER) ? gpu->cluster_size : 2);
    if ((!fr && !kept) || !au_table_has_family(t, "dsmem_local")) {
        res->flags |= AU_F_DSMEM_UNCALIBRATED;
        res->flags &= ~(AU_F_NO_ATOMICS | AU_F_UNPRICED_WAVEFRONTS);
        res->verdict = AU_VERDICT_UNKNOWN;
        return AU_OK;
    }
    if (kept)
        return generic_no_cluster(t, G, N, T, have_w, busy, thr, res);
    remote_busy rb = {0, 0, 0, 0};
    double b_local, b_local_lo, b_local_hi;
    int rc = remote_path(t, gpu, k, fr, N, busy, f, f_x, mixed, T, &rb);
    if (rc != AU_OK || (rc = local_unit(t, gpu, k, RW, XC, N, busy, res, &b_local, &b_local_lo, &b_local_hi)) != AU_OK)
        return rc;
    res->util_local = b_local / T;
    res->util_remote = rb.b / T;
    res->busy = fmax(b_local, rb.b);
    res->util = res->busy / T;
    res->flags &= ~(AU_F_NO_ATOMICS | AU_F_UNPRICED_WAVEFRONTS | AU_F_OVER_100);
    res->flags |= AU_F_DSMEM;
    /* the busiest SM (local wavefronts counted): its local unit's share, and at least U */
    if (res->imbalance > 0 && (gpu->have & AU_C_ACTIVE_MAX) && gpu->active_max > 0)
        res->util_busiest = fmax(res->util, b_local * res->imbalance / gpu->active_max);
    double lo = fmax(b_local_lo, rb.b), hi_local = fmax(b_local_hi, rb.b);
    double hi_row = fmax(b_local_hi, rb.hi_row);
    if (hi_local > lo * 1.005 + 1e-9)
        res->flags |= AU_F_DSMEM_LOCAL_ESTIMATED;
    if (hi_row > hi_local * 1.005 + 1e-9)
        res->flags |= AU_F_DSMEM_ROW_RANGE;
    double lo_all = fmax(b_local_lo, rb.lo), hi_all = fmax(b_local_hi, rb.hi_all);
    if (mixed && (lo_all < lo * 0.995 || hi_all > hi_row * 1.005 + 1e-9))
        res->flags |= AU_F_DSMEM_MIXED;
    const unsigned ranged = AU_F_DSMEM_LOCAL_ESTIMATED | AU_F_DSMEM_ROW_RANGE | AU_F_DSMEM_MIXED;
    if (res->flags & ranged) {
        res->util_lo = lo_all / T;
        res->util_hi = hi_all / T;
    }
    double u_hot = 0;
    int hot = mixed || (res->flags & AU_F_DSMEM_OTHER_TRAFFIC) ? 0 : hot_receiver(t, gpu, sm_count, N, busy, &u_hot);
    if (hot < 0)
        return hot;
    if (hot && u_hot > 0) {
        /* the receiver's U, every range settled by the counters; busy as the mean SM's cycles */
        res->flags = (res->flags & ~(au_flags)ranged) | AU_F_DSMEM_HOT;
        res->util = res->util_hot = u_hot;
        res->util_lo = res->util_hi = 0;
        res->busy = u_hot * T;
        res->util_busiest = fmax(res->util_busiest, u_hot);
    } else if (hot) {
        /* the receiver's cost is unknown: from the mean SM's U to a saturated receiver */
        res->flags = (res->flags & ~(au_flags)ranged) | AU_F_DSMEM_HOT | AU_F_DSMEM_HOT_UNCALIBRATED;
        res->util_lo = fmin(res->util, 1);
        res->util_hi = fmax(res->util, 1);
    }
    au_result_finish(res, thr, (res->flags & (ranged | AU_F_DSMEM_HOT_UNCALIBRATED)) != 0);
    return AU_OK;
}
