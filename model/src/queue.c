/*
 * queue.c - the load-dependent single-server queue model of one SM's shared atomic unit.
 *
 *   J = shared-atomic warp-instructions (jobs), a = serialized passes per job
 *   = wavefronts / (J + J_cas) (the hardware counts two wavefronts per pass of a CAS-class job,
 *   docs/calibration.md), N = queue length (resident warps per active cycle unless measured),
 *   c = N * J_cas / J, S = S(N, a, c) from the table, B = J * S (busy cycles), U = B / T with T
 *   the SM's active cycles.  Families whose own operation is CAS-class (names starting "cas") are
 *   priced at c = 0: their jobs are the family's operation.
 * GPU-wide counters are rollups: J is a sum over SMs and T the average active cycles per SM, so
 * J / sm_count / T equals sum(J) / sum(T) and U is the active-time weighted mean over SMs.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

/* indexed by bit (flags.def is in bit order, test model.flags_doc checks) */
static const char *const flag_names[] = {
#define AU_FLAG(id, bit, name, meaning) name,
#include "atomutil/flags.def"
#undef AU_FLAG
};

static const char *const flag_meanings[] = {
#define AU_FLAG(id, bit, name, meaning) meaning,
#include "atomutil/flags.def"
#undef AU_FLAG
};

const char *au_flag_name(unsigned bit)
{
    return bit < sizeof flag_names / sizeof flag_names[0] ? flag_names[bit] : NULL;
}

const char *au_flag_meaning(unsigned bit)
{
    return bit < sizeof flag_meanings / sizeof flag_meanings[0] ? flag_meanings[bit] : NULL;
}

char *au_flags_string(au_flags flags, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; ++i) {
        if (!(flags & (1ull << i)))
            continue;
        int k = snprintf(buf + used, size > used ? size - used : 0, "%s%s", used ? "," : "", flag_names[i]);
        if (k < 0 || (size_t)k >= size - used)
            break;
        used += (size_t)k;
    }
    return buf;
}

int au_loop_service(const au_table *t, const char *family, double n, double wf_attempt, double *service_cycles,
                    au_flags *flags)
{
    if (!t || !family || !service_cycles || !(wf_attempt >= 0))
        return au_set_error(AU_E_INVAL, "au_loop_service: invalid argument");
    int amax = au_table_a_max(t, family);
    if (amax <= 0)
        return au_set_error(AU_E_NOTFOUND, "table has no family '%s'", family);
    double s_top;
    int rc = au_table_interp(t, family, n, amax, 0, &s_top, flags);
    if (rc)
        return rc;
    *service_cycles = s_top * wf_attempt / (AU_LOOP_WF_PER_A * amax);
    return AU_OK;
}

int au_loop_loads(const au_counters *gpu, double loop_jobs, double *w, double *lo, double *hi)
{
    *w = *lo = *hi = -1;
    if (!gpu || (gpu->have & (AU_C_LOOP_LOADS | AU_C_WAVEFRONTS)) != (AU_C_LOOP_LOADS | AU_C_WAVEFRONTS))
        return 0;
    *w = *lo = *hi = 0;
    if (!(loop_jobs > 0))
        return 0;
    /* wavefronts of the non-atomic shared instructions: the loops' loads and any other LDS/STS */
    double other_wf = fmax(gpu->shared_wavefronts - gpu->wavefronts, 0);
    double other_inst = fmax(gpu->ld_inst, 0) + fmax(gpu->st_inst, 0);
    if (other_inst <= loop_jobs * 1.005) {
        *w = *lo = *hi = other_wf;
        return 1;
    }
    /* other loads and stores, or loads of the loops beyond one per attempt (a 64-bit min/max loop
     * loads once more where no CAS is needed): the loops' loads take at least a wavefront each and
     * at most all of W_o; the estimate shares W_o by instruction (the kernel's code can say more:
     * au_launch_eval) */
    *lo = fmin(loop_jobs, other_wf);
    *hi = other_wf;
    *w = fmin(fmax(other_wf * loop_jobs / other_inst, *lo), *hi);
    return 2;
}

/* The loads of a CAS-loop family's attempts, per SM (eval_one): known = au_loop_loads's status. */
typedef struct loop_loads {
    int known;
    double w, lo, hi;
} loop_loads;

int au_generic_wavefront_cost(const au_table *t, double *lo, double *hi, const char **family)
{
    const char *f = au_table_has_family(t, "generic") ? "generic" : "add";
    if (family)
        *family = f;
    int n = au_table_n_max(t, f), amax = au_table_a_max(t, f);
    if (amax <= 0)
        return au_set_error(AU_E_NOTFOUND, "table has no family '%s'", f);
    *lo = INFINITY, *hi = 0;
    for (int a = 1; a <= amax; ++a) {
        double s;
        int rc = au_table_interp(t, f, n, a, 0, &s, NULL);
        if (rc)
            return rc;
        *lo = fmin(*lo, s / a), *hi = fmax(*hi, s / a);
    }
    return AU_OK;
}

int au_generic_counted(const au_counters *g)
{
    return (g->have & AU_C_GENERIC) && g->generic_jobs > 0 && (g->have & AU_C_WAVEFRONTS) && g->wavefronts > 0 &&
           (g->have & AU_C_JOBS) && !(g->jobs > 0) && !(g->have & AU_C_DSHARED_PATH);
}

/* Shared-atomic wavefronts without a counted job: generic atomics (ATOM.E.*, docs/opcodes.md
 * "Generic atomics") are not counted as shared-atomic instructions on GH100, but their wavefronts
 * are, so their passes per instruction are unknown, and with them the cost of a wavefront (the
 * generic path costs 2 cycles for an instruction of one pass, 1 per pass from two on, on the
 * H100).  U has the range of the cheapest and the dearest wavefront (au_generic_wavefront_cost).
 * The estimate is the dearest (one pass per instruction) as long as its busy time fits in the
 * active cycles, else the busy time that fills them (the instructions then had several passes),
 * never below the cheapest.  Flag unpriced_wavefronts; the kernel's code may name them
 * (au_launch_eval). */
static int eval_unpriced(const au_table *t, double wavefronts, const au_thresholds *thr, au_result *res)
{
    double lo, hi;
    int rc = au_generic_wavefront_cost(t, &lo, &hi, NULL);
    if (rc)
        return rc;
    res->flags |= AU_F_UNPRICED_WAVEFRONTS;
    res->a = 0;
    res->util_lo = wavefronts * lo / res->active;
    res->util_hi = wavefronts * hi / res->active;
    res->util = fmin(res->util_hi, fmax(res->util_lo, 1.0));
    res->busy = res->util * res->active;
    res->service = res->busy / wavefronts;
    au_result_finish(res, thr, 1);
    return AU_OK;
}

/* The counters U needs from one SM's (or the mean SM's) counters with `jobs` jobs: without jobs
 * only the jobs counter, to know that U = 0. */
static unsigned needed_counters(const au_counters *ctr, double jobs, au_busy_mode busy)
{
    unsigned need = AU_C_JOBS | AU_C_ACTIVE_CYCLES;
    if ((ctr->have & AU_C_JOBS) && jobs > 0)
        need |= AU_C_CAS | ((ctr->have & AU_C_QUEUE) || busy != AU_BUSY_QUEUE ? 0 : AU_C_WARPS);
    return need;
}

static int eval_one(const au_table *t, const au_family_def *fam, const au_counters *ctr, double jobs, double cas,
                    double wavefronts, const loop_loads *ld, const au_thresholds *thr, au_busy_mode busy,
                    au_result *res)
{
    memset(res, 0, sizeof *res);
    res->missing = needed_counters(ctr, jobs, busy) & ~ctr->have;
    res->active = (ctr->have & AU_C_ACTIVE_CYCLES) ? ctr->active_cycles : 0;
    if (res->missing) {
        res->flags |= AU_F_MISSING;
        res->verdict = AU_VERDICT_UNKNOWN;
        return AU_OK;
    }
    res->jobs = jobs;
    if (!(jobs > 0) && (ctr->have & AU_C_WAVEFRONTS) && wavefronts > 0 && res->active > 0)
        return eval_unpriced(t, wavefronts, thr, res);
    if (!(jobs > 0)) {
        res->flags |= AU_F_NO_ATOMICS;
        res->verdict = AU_VERDICT_NOT_LIMITING;
        return AU_OK;
    }
    if (!(res->active > 0)) {
        /* jobs ran, so the SM was active: counters are inconsistent */
        res->flags |= AU_F_MISSING;
        res->missing |= AU_C_ACTIVE_CYCLES;
        res->verdict = AU_VERDICT_UNKNOWN;
        return AU_OK;
    }
    double share = cas / jobs;
    if (share > 1)
        share = 1;
    if (share < 0)
        share = 0;
    if (ctr->have & AU_C_WAVEFRONTS && wavefronts > 0) {
        res->a = wavefronts / (jobs * (1 + share));
    } else {
        res->a = 1; /* one wavefront per job is the least a job can take */
        res->flags |= AU_F_NO_WAVEFRONTS;
    }
    if (ctr->have & AU_C_QUEUE) {
        res->queue_len = ctr->queue;
    } else {
        res->queue_len = ctr->warps;
        if (busy == AU_BUSY_QUEUE) /* only then does the estimate enter U */
            res->flags |= AU_F_QUEUE_ESTIMATED;
    }
    const char *family = fam->name;
    const int cas_class = au_kind_is_cas_class(fam->kind), cas_loop = fam->kind == AU_KIND_CAS_LOOP;
    res->cas_queued = cas_class ? 0 : res->queue_len * share;
    /* a counted a hair above 32 (a few extra wavefronts from elsewhere in the kernel) is 32, not a
     * result worth a clamp warning */
    double a = res->a > AU_A_MAX && res->a <= AU_A_MAX * 1.01 ? AU_A_MAX : res->a;
    /* the CAS share is what the counters give; at the pricing n it is the same share */
    double n = au_pricing_n(t, family, res->queue_len, busy);
    double c = cas_class ? 0 : n * share;
    int rc;
    if (cas_loop && ld && ld->known) {
        /* every job an attempt of the loop: priced by its wavefronts, its load's included */
        rc = au_loop_service(t, family, n, (wavefronts + ld->w) / jobs, &res->service, &res->flags);
        if (rc == AU_OK && ld->known == 2) {
            double s_lo, s_hi;
            if ((rc = au_loop_service(t, family, n, (wavefronts + ld->lo) / jobs, &s_lo, NULL)) ||
                (rc = au_loop_service(t, family, n, (wavefronts + ld->hi) / jobs, &s_hi, NULL)))
                return rc;
            res->util_lo = jobs * s_lo / res->active;
            res->util_hi = jobs * s_hi / res->active;
            res->flags |= AU_F_LOOP_LOADS_ESTIMATED;
        }
    } else {
        if (cas_loop)
            res->flags |= AU_F_LOOP_LOADS_UNKNOWN;
        rc = au_table_interp(t, family, n, a, c, &res->service, &res->flags);
    }
    if (rc)
        return rc;
    res->busy = jobs * res->service;
    res->util = res->busy / res->active;
    au_result_finish(res, thr, (res->flags & AU_F_LOOP_LOADS_ESTIMATED) != 0);
    return AU_OK;
}

void au_result_busiest(au_result *res, const au_counters *gpu, int sm_count)
{
    res->imbalance = res->util_busiest = 0;
    res->flags &= ~AU_F_IMBALANCED;
    if ((res->flags & AU_F_MISSING) || sm_count <= 0 || !(gpu->have & AU_C_WAVEFRONTS_MAX) ||
        !(gpu->have & AU_C_WAVEFRONTS) || !(gpu->wavefronts > 0) || !(res->busy > 0))
        return;
    res->imbalance = gpu->wavefronts_max / (gpu->wavefronts / sm_count);
    if (res->imbalance >= 1.25)
        res->flags |= AU_F_IMBALANCED;
    /* the most utilized SM's U is at least the mean (U is an active-time weighted mean over SMs)
     * and at least the busiest SM's busy cycles over the longest active time */
    if ((gpu->have & AU_C_ACTIVE_MAX) && gpu->active_max > 0)
        res->util_busiest = fmax(res->util, res->busy * res->imbalance / gpu->active_max);
}

void au_result_unusable(au_result *res, unsigned flag, unsigned missing, const char *why)
{
    memset(res, 0, sizeof *res);
    res->flags = flag;
    res->missing = missing;
    res->verdict = AU_VERDICT_UNKNOWN;
    au_strlcpy(res->why, why, sizeof res->why);
}

void au_result_check_util(au_result *res, double util_saturated)
{
    if (!(util_saturated > AU_U_IMPLAUSIBLE) || (res->flags & AU_F_UNUSABLE))
        return;
    char why[sizeof res->why];
    snprintf(why, sizeof why,
             "U above %.0f %% at the unit's capacity: the busy time the counters give does not fit in "
             "the active cycles",
             AU_U_IMPLAUSIBLE * 100);
    au_result_unusable(res, AU_F_IMPLAUSIBLE, 0, why);
}

/* Names of the metrics behind the AU_C_* bits of `bits`, comma separated, into buf. */
static void metric_names(unsigned bits, char *buf, size_t size)
{
    size_t n, used = 0;
    const au_metric_def *d = au_metric_defs(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n; ++i) {
        if (!(d[i].counter & bits))
            continue;
        int k = snprintf(buf + used, size - used, "%s%s", used ? "," : "", d[i].name);
        if (k < 0 || (size_t)k >= size - used)
            break;
        used += (size_t)k;
    }
}

/* The GPU-wide counters of one launch before any pricing (docs/counters.md, "Counters that cannot
 * be right"): 0 when they can be used, else the AU_F_UNUSABLE flag of the first check that fails,
 * with *missing (AU_F_MISSING) and one line in why. */
static unsigned check_counters(const au_table *t, const au_counters *g, int sm_count, au_busy_mode busy,
                               unsigned *missing, char *why, size_t size)
{
    char names[256];
    *missing = 0;
    if (g->wrong_unit) {
        metric_names(g->wrong_unit, names, sizeof names);
        snprintf(why, size, "%.200s given in a unit of another kind", names);
        return AU_F_WRONG_UNIT;
    }
    unsigned need = needed_counters(g, g->jobs, busy);
    /* the cluster set (DSMEM counters, no local wavefronts) prices its atomics by all three DSMEM
     * counters; otherwise the wavefronts are needed, without which a is unknown (a = 1 priced a
     * 32-way launch at 3 % for 97 %).  A GPU without DSMEM may count generic atomics alone. */
    if (!(g->have & AU_C_WAVEFRONTS) && (g->have & AU_C_DSMEM))
        need |= AU_C_DSMEM;
    else if ((g->have & AU_C_JOBS) && g->jobs > 0)
        need |= AU_C_WAVEFRONTS;
    if ((*missing = need & ~g->have) != 0) {
        metric_names(*missing, names, sizeof names);
        snprintf(why, size, "%.240s", names);
        return AU_F_MISSING;
    }
    double J = g->jobs, T = g->active_cycles;
    if (!(J > 0))
        return 0; /* U = 0, or unpriced wavefronts (checked on U) */
    if (g->cas_jobs > J)
        snprintf(why, size, "%.6g CAS jobs, more than all %.6g jobs", g->cas_jobs, J);
    else if (J > AU_ISSUE_PER_CYCLE * sm_count * T)
        snprintf(why, size, "%.6g jobs, more than %d SMs issue in %.6g active cycles (%.0f per cycle each)", J,
                 sm_count, T, AU_ISSUE_PER_CYCLE);
    else if ((g->have & AU_C_WAVEFRONTS) && g->wavefronts < J)
        snprintf(why, size, "%.6g shared-atomic wavefronts, fewer than the %.6g jobs (each takes one at least)",
                 g->wavefronts, J);
    else if ((g->have & AU_C_WARPS) && g->warps > au_table_get_meta(t)->max_warps_per_sm * 1.01)
        snprintf(why, size, "%.6g resident warps per active cycle, more than an SM holds (%d)", g->warps,
                 au_table_get_meta(t)->max_warps_per_sm);
    else
        return 0;
    return AU_F_INCONSISTENT;
}

unsigned au_counters_unusable(const au_table *t, const au_counters *gpu, int sm_count, au_busy_mode busy)
{
    char why[8];
    unsigned missing;
    return check_counters(t, gpu, sm_count, busy, &missing, why, sizeof why);
}

/* au_model_eval's pricing of counters that passed check_counters. */
static int price_gpu(const au_table *t, const au_family_def *fam, const au_counters *gpu, int sm_count,
                     const au_thresholds *thr, au_busy_mode busy, au_result *res)
{
    double k = 1.0 / sm_count, jobs = gpu->jobs, cas = gpu->cas_jobs;
    /* generic atomics and their instructions counted (the generic set), no ATOMS job: each
     * instruction is a job of the generic family, a = wavefronts / (instructions + CAS ones) as
     * for ATOMS (a CAS pass takes two wavefronts); the table's add costs where it lacks the family */
    au_family_def gbuf;
    const int generic = au_generic_counted(gpu);
    const char *gf = au_table_has_family(t, "generic") ? "generic" : "add";
    if (generic) {
        fam = au_family_resolve(gf, &gbuf);
        jobs = gpu->generic_jobs;
        cas = (gpu->have & AU_C_GENERIC_CAS) ? gpu->generic_cas : 0;
    }
    /* priced as one CAS-loop family, every job is an attempt of its loop */
    loop_loads ld = {0, 0, 0, 0};
    if (fam->kind == AU_KIND_CAS_LOOP) {
        ld.known = au_loop_loads(gpu, jobs, &ld.w, &ld.lo, &ld.hi);
        ld.w *= k, ld.lo *= k, ld.hi *= k;
    }
    int rc = eval_one(t, fam, gpu, jobs * k, cas * k, gpu->wavefronts * k, &ld, thr, busy, res);
    if (rc == AU_OK && generic && strcmp(gf, "generic") != 0)
        res->flags |= AU_F_UNKNOWN_OPCODE;
    if (rc == AU_OK)
        au_result_busiest(res, gpu, sm_count);
    if (rc == AU_OK)
        rc = au_dsmem_apply(t, gpu, sm_count, thr, busy, res);
    return rc;
}

int au_model_eval(const au_table *t, const char *family, const au_counters *gpu, int sm_count, const au_thresholds *thr,
                  au_busy_mode busy, au_result *res)
{
    if (!t || !family || !gpu || !res || sm_count <= 0)
        return au_set_error(AU_E_INVAL, "au_model_eval: invalid argument");
    if (!au_table_has_family(t, family))
        return au_set_error(AU_E_NOTFOUND, "table has no family '%s'", family);
    char why[sizeof res->why];
    unsigned missing, bad = check_counters(t, gpu, sm_count, busy, &missing, why, sizeof why);
    if (bad) {
        au_result_unusable(res, bad, missing, why);
        return AU_OK;
    }
    au_family_def buf;
    const au_family_def *fam = au_family_resolve(family, &buf);
    int rc = price_gpu(t, fam, gpu, sm_count, thr, busy, res);
    /* the queue mode's U may exceed the capacity (latency priced as busy): checked at capacity */
    au_result sat;
    if (rc == AU_OK && busy != AU_BUSY_SATURATED)
        rc = price_gpu(t, fam, gpu, sm_count, thr, AU_BUSY_SATURATED, &sat);
    /* wavefronts of unknown passes (unpriced_wavefronts): checked at their least busy time */
    if (rc == AU_OK)
        au_result_check_util(res, (res->flags & AU_F_UNPRICED_WAVEFRONTS) ? res->util_lo
                                  : busy == AU_BUSY_SATURATED             ? res->util
                                                                          : sat.util);
    return rc;
}

/* ------------------------------------------------------------------ per-class evaluation */

int au_model_eval_classes(const au_table *t, const au_class_jobs *cls, size_t ncls, double queue_len,
                          double active_cycles, const au_thresholds *thr, au_busy_mode busy, au_result *res,
                          double *busy_share)
{
    if (!t || (!cls && ncls) || !res)
        return au_set_error(AU_E_INVAL, "au_model_eval_classes: invalid argument");
    memset(res, 0, sizeof *res);
    res->active = active_cycles;
    res->queue_len = queue_len;
    /* Jplain: 32-bit CAS jobs (family "cas"), the CAS of the tables' c column; the other CAS-class
     * jobs (CAS.64, CAS loops' CAST.SPIN), which no c column was measured with, count in J only */
    double J = 0, Jplain = 0, Jnc = 0, passes_w = 0, waves_p = 0;
    for (size_t k = 0; k < ncls; ++k) {
        if (busy_share)
            busy_share[k] = 0;
        if (!(cls[k].jobs > 0))
            continue;
        int cas = au_family_is_cas_class(cls[k].family);
        J += cls[k].jobs;
        if (!cas)
            Jnc += cls[k].jobs;
        else if (strcmp(cls[k].family, "cas") == 0)
            Jplain += cls[k].jobs;
        passes_w += cls[k].jobs;
        waves_p += cls[k].wavefronts / (cas ? 2.0 : 1.0);
    }
    double Jmix = Jnc + Jplain; /* the jobs priced in the non-CAS families' c column */
    res->jobs = J;
    if (!(J > 0)) {
        res->flags |= AU_F_NO_ATOMICS;
        res->verdict = AU_VERDICT_NOT_LIMITING;
        return AU_OK;
    }
    res->a = waves_p / passes_w;
    res->cas_queued = Jnc > 0 ? queue_len * Jplain / Jmix : 0;
    double pure_sum = 0, mix = 0, other = 0;
    double pure[64];
    if (ncls > sizeof pure / sizeof pure[0])
        return au_set_error(AU_E_INVAL, "au_model_eval_classes: more than 64 classes");
    for (size_t k = 0; k < ncls; ++k) {
        pure[k] = 0;
        if (!(cls[k].jobs > 0))
            continue;
        /* the class's kind comes from its own family, whether or not the table has it */
        au_family_def buf;
        const au_family_def *f = au_family_resolve(cls[k].family, &buf);
        int cas = f && au_kind_is_cas_class(f->kind), loop = f && f->kind == AU_KIND_CAS_LOOP;
        int have = cls[k].family && au_table_has_family(t, cls[k].family);
        const char *fam = have ? cls[k].family : "add";
        double a = cls[k].wavefronts > 0 ? cls[k].wavefronts / cls[k].jobs / (cas ? 2.0 : 1.0) : 1;
        if (a > AU_A_MAX && a <= AU_A_MAX * 1.01)
            a = AU_A_MAX;
        double s0, sc, n = au_pricing_n(t, fam, queue_len, busy);
        int rc;
        if (have && loop && cls[k].load_wavefronts >= 0) {
            /* an attempt of a CAS loop: its wavefronts, its load's included */
            rc = au_loop_service(t, fam, n, (cls[k].wavefronts + cls[k].load_wavefronts) / cls[k].jobs, &s0,
                                 &res->flags);
        } else {
            if (have && loop)
                res->flags |= AU_F_LOOP_LOADS_UNKNOWN;
            /* a CAS class the table lacks costs what add's all-CAS column (c = n) says */
            rc = au_table_interp(t, fam, n, a, cas && !have ? n : 0, &s0, &res->flags);
        }
        if (rc)
            return rc;
        pure[k] = cls[k].jobs * s0;
        pure_sum += pure[k];
        if (!cas && Jnc > 0) {
            if ((rc = au_table_interp(t, fam, n, a, n * Jplain / Jmix, &sc, &res->flags)))
                return rc;
            mix += cls[k].jobs / Jnc * sc;
        } else if (cas && strcmp(cls[k].family, "cas") != 0) {
            other += pure[k];
        }
    }
    res->busy = Jnc > 0 ? Jmix * mix + other : pure_sum;
    res->service = res->busy / J;
    res->util = active_cycles > 0 ? res->busy / active_cycles : 0;
    au_result_finish(res, thr, 0);
    if (busy_share && pure_sum > 0)
        for (size_t k = 0; k < ncls; ++k)
            busy_share[k] = res->busy * pure[k] / pure_sum;
    return AU_OK;
}
