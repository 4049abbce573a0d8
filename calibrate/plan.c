/*
 * plan.c - the sweep plan of a calibration: which (family, n, a, c) points are measured, how many
 * lanes produce a wavefronts, what one pass is expected to cost, and how work items are spread
 * over the SMs (longest processing time first).  The dsmem families have their own grid (n up to
 * one block of 32 warps, a in powers of two, c = 0).  Pure C: tested without a GPU.
 */
#include "cal.h"

#include <stdlib.h>
#include <string.h>

/* The --quick grid: enough n and a to see the 1/n fall, saturation and the a slope. */
static const int quick_n[] = {1, 2, 4, 8, 16, 32, 48, 64};
static const int quick_a[] = {1, 2, 4, 8, 16, 32};

int au_cal_c_values(int n, int cgrid, int quick, int *out)
{
    int k = 0;
    if (cgrid == AU_CAL_CGRID_ZERO) {
        out[0] = 0;
        return 1;
    }
    if (cgrid == AU_CAL_CGRID_FULL && !quick) {
        for (int c = 0; c <= n; ++c)
            out[k++] = c;
        return k;
    }
    out[k++] = 0;
    out[k++] = n;
    if (cgrid == AU_CAL_CGRID_ENDS)
        return 2;
    if (quick) {
        out[k++] = (n + 1) / 2;
    } else { /* SPARSE: quarters, rounded to the nearest warp */
        out[k++] = (n + 2) / 4;
        out[k++] = (n + 1) / 2;
        out[k++] = (3 * n + 2) / 4;
    }
    qsort(out, (size_t)k, sizeof *out, au_cmp_int);
    int m = 0;
    for (int i = 0; i < k; ++i)
        if (m == 0 || out[m - 1] != out[i])
            out[m++] = out[i];
    return m;
}

/* Rough cost model of one pass (cycles), only for balancing SMs and the progress bar: the unit
 * needs ~1 cycle per wavefront (2 for CAS), a warp cannot go faster than one job per ~14 cycles,
 * and a CAS loop waits for each attempt (~150 cycles). */
static double estimate(const au_cal_family *f, int n, int a, int c, int k)
{
    if (au_cal_is_dsmem(f)) {
        /* one pass of a dsmem point runs n k jobs on each SM: about 2 cycles per job and pass on
         * the own SM, 14 plus 7.5 per lane on a word on a remote one (the H100's, docs/calibration.md,
         * "Distributed shared memory (cluster) families"); one warp alone waits on its jobs' latency */
        double per_job = f->shift ? 14.0 + 7.5 * a : 2.0 * a;
        const double floor = f->shift ? 500.0 : 20.0;
        if (f->shift < 0) /* hot: rank 0's SM serves the cluster's jobs, about 14 + 2.5 a cycles each */
            per_job = f->cluster * (14.0 + 2.5 * a);
        const double unit = (double)n * per_job;
        return (double)k * (unit > floor ? unit : floor) + 10000.0;
    }
    const int casloop = f->pattern == AU_CAL_PAT_DISTINCT;
    const double w_op = f->wf_per_way;
    const double unit = (double)(n - c) * a * w_op + (double)c * a * 2.0;
    const double floor = casloop ? 150.0 : 14.0;
    return (double)k * (unit > floor ? unit : floor) + 10000.0;
}

int au_cal_make_point(int family, int n, int a, int c, int jobs, int pattern, au_cal_point *out)
{
    if (family < 0 || family >= au_cal_nfamilies)
        return au_set_error(AU_E_INVAL, "no family #%d", family);
    const au_cal_family *f = &au_cal_families[family];
    if (n < 1 || c < 0 || c > n)
        return au_set_error(AU_E_INVAL, "%s: need n >= 1 and 0 <= c <= n (n=%d c=%d)", f->name, n, c);
    if (au_cal_is_dsmem(f)) {
        /* one block per SM holds the n warps; a lanes on each of 32/a words */
        if (pattern >= 0)
            return au_set_error(AU_E_INVAL, "%s: a dsmem family has its own lane pattern only", f->name);
        if (n > AU_CAL_DSMEM_MAX_N || c != 0)
            return au_set_error(AU_E_INVAL, "%s: need n <= %d and c = 0 (n=%d c=%d)", f->name, AU_CAL_DSMEM_MAX_N, n,
                                c);
        if (a < 1 || a > 32 || 32 % a)
            return au_set_error(AU_E_INVAL, "%s: a=%d not reachable (1, 2, 4, 8, 16, 32)", f->name, a);
    }
    const int amax = pattern < 0 ? f->max_a : 32;
    if (a < 1 || a > amax)
        return au_set_error(AU_E_INVAL, "%s: a=%d not reachable (1..%d)", f->name, a, amax);
    out->family = family;
    out->n = n;
    out->a = a;
    out->c = c;
    out->pattern = pattern < 0 ? f->pattern : pattern;
    out->lanes_op = pattern < 0 ? au_cal_family_lanes(f, a) : a;
    out->lanes_cas = au_cal_is_dsmem(f) ? 0 : a; /* 32-bit ATOMS.CAS, same-bank: one pass per lane */
    out->est_cycles = estimate(f, n, a, c, jobs > 0 ? jobs : 1);
    return AU_OK;
}

long au_cal_point_wavefronts(const au_cal_point *p, int jobs)
{
    const au_cal_family *f = &au_cal_families[p->family];
    if (au_cal_is_dsmem(f) || p->pattern != f->pattern || p->lanes_op != au_cal_family_lanes(f, p->a))
        return -1;
    return 2L * jobs * ((long)(p->n - p->c) * p->a * f->wf_per_way + (long)p->c * p->a * 2);
}

size_t au_cal_plan_atoms(const au_cal_plan *p)
{
    size_t k = 0;
    while (k < p->npts && !au_cal_is_dsmem(&au_cal_families[p->pts[k].family]))
        ++k;
    return k;
}

void au_cal_plan_free(au_cal_plan *p)
{
    free(p->pts);
    p->pts = NULL;
    p->npts = 0;
}

int au_cal_plan_build(const au_cal_plan_opts *o, au_cal_plan *p)
{
    int rc = AU_OK;
    int *cv = NULL;
    p->pts = NULL;
    p->npts = 0;
    if (o->max_warps < 1 || o->max_warps > 1024)
        return au_set_error(AU_E_INVAL, "max warps per SM %d out of range", o->max_warps);
    if (!o->families)
        return au_set_error(AU_E_INVAL, "no family selected");

    int nn = 0, ns[1024], dn = 0, dns[AU_CAL_DSMEM_MAX_N];
    if (o->quick) {
        for (size_t i = 0; i < sizeof quick_n / sizeof quick_n[0]; ++i)
            if (quick_n[i] < o->max_warps)
                ns[nn++] = quick_n[i];
        ns[nn++] = o->max_warps; /* always the saturated end */
    } else {
        for (int n = 1; n <= o->max_warps; ++n)
            ns[nn++] = n;
    }
    /* dsmem: one block per SM, so n ends at a block's 32 warps (or the SM's, if fewer) */
    const int dmax = o->max_warps < AU_CAL_DSMEM_MAX_N ? o->max_warps : AU_CAL_DSMEM_MAX_N;
    for (int i = 0; i < nn; ++i)
        if (ns[i] < dmax)
            dns[dn++] = ns[i];
    dns[dn++] = dmax;

    /* count first, then fill: one allocation */
    size_t total = 0;
    cv = malloc(((size_t)o->max_warps + 1) * sizeof *cv);
    if (!cv)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (int pass = 0; pass < 2; ++pass) {
        size_t k = 0;
        for (int fi = 0; fi < au_cal_nfamilies; ++fi) {
            if (!(o->families & (1u << fi)))
                continue;
            const au_cal_family *f = &au_cal_families[fi];
            const int dsmem = au_cal_is_dsmem(f);
            /* c means nothing for `cas`, whose own jobs are the c jobs' opcode: always 0 and n;
             * the dsmem families have no CAS warps: c = 0 */
            const int cgrid =
                o->cgrid == AU_CAL_CGRID_AUTO || strcmp(f->name, "cas") == 0 || dsmem ? f->cgrid : o->cgrid;
            const int jobs = dsmem && o->dsmem_jobs > 0 ? o->dsmem_jobs : o->jobs;
            /* the dsmem lane pattern reaches the powers of two only, quick or not */
            const int pow2_a = o->quick || dsmem;
            for (int i = 0; i < (dsmem ? dn : nn); ++i) {
                const int n = dsmem ? dns[i] : ns[i];
                const int nc = au_cal_c_values(n, cgrid, o->quick, cv);
                const int na = pow2_a ? (int)(sizeof quick_a / sizeof quick_a[0]) : f->max_a;
                for (int j = 0; j < na; ++j) {
                    const int a = pow2_a ? quick_a[j] : j + 1;
                    if (a > f->max_a)
                        continue;
                    for (int m = 0; m < nc; ++m, ++k)
                        if (pass == 1 && (rc = au_cal_make_point(fi, n, a, cv[m], jobs, -1, &p->pts[k])))
                            goto fail;
                }
            }
        }
        if (pass == 0) {
            total = k;
            p->pts = malloc((total ? total : 1) * sizeof *p->pts);
            if (!p->pts) {
                rc = au_set_error(AU_E_NOMEM, "out of memory");
                goto fail;
            }
        }
    }
    p->npts = total;
    free(cv);
    return AU_OK;
fail:
    free(cv);
    au_cal_plan_free(p);
    return rc;
}

/* qsort context for the LPT order (the C library's qsort has no user pointer). */
static const double *sched_cost;

static int cmp_cost_desc(const void *x, const void *y)
{
    const int i = *(const int *)x, j = *(const int *)y;
    if (sched_cost[i] != sched_cost[j])
        return sched_cost[i] > sched_cost[j] ? -1 : 1;
    return (i > j) - (i < j); /* stable: equal items keep plan order */
}

double au_cal_schedule(const double *cost, size_t nitems, int nsm, int *order, int *first)
{
    int *bin = malloc((nitems ? nitems : 1) * sizeof *bin);
    double *load = calloc((size_t)nsm, sizeof *load);
    int *count = calloc((size_t)nsm + 1, sizeof *count);
    double worst = -1;
    if (!bin || !load || !count)
        goto done;
    for (size_t i = 0; i < nitems; ++i)
        order[i] = (int)i;
    sched_cost = cost;
    qsort(order, nitems, sizeof *order, cmp_cost_desc);
    sched_cost = NULL;
    /* each item to the least loaded list; repetitions of one point (equal cost, adjacent) thus
     * land on different SMs */
    for (size_t r = 0; r < nitems; ++r) {
        int best = 0;
        for (int s = 1; s < nsm; ++s)
            if (load[s] < load[best])
                best = s;
        bin[order[r]] = best;
        load[best] += cost[order[r]];
    }
    /* group by list, keeping the LPT order inside a list */
    for (size_t i = 0; i < nitems; ++i)
        count[bin[i] + 1]++;
    first[0] = 0;
    for (int s = 0; s < nsm; ++s)
        first[s + 1] = first[s] + count[s + 1];
    memcpy(count, first, (size_t)nsm * sizeof *count);
    int *tmp = malloc((nitems ? nitems : 1) * sizeof *tmp);
    if (!tmp)
        goto done;
    for (size_t r = 0; r < nitems; ++r)
        tmp[count[bin[order[r]]]++] = order[r];
    memcpy(order, tmp, nitems * sizeof *order);
    free(tmp);
    worst = 0;
    for (int s = 0; s < nsm; ++s)
        worst = load[s] > worst ? load[s] : worst;
done:
    free(bin);
    free(load);
    free(count);
    return worst;
}
