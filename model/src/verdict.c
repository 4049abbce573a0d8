/*
 * verdict.c - finishing a model result: the verdict of a utilization, the range of an uncertain
 * one (capped) and its verdict, the over-100 % flag, and the queue length at which jobs are priced.
 * Every pricing (queue.c, dsmem.c) ends here.
 */
#include "internal.h"

#include <math.h>

const char *au_verdict_name(au_verdict v)
{
    switch (v) {
    case AU_VERDICT_BOUND: return "atomic-bound";
    case AU_VERDICT_SIGNIFICANT: return "significant";
    case AU_VERDICT_NOT_LIMITING: return "not-limiting";
    case AU_VERDICT_UNCERTAIN: return "uncertain";
    default: return "unknown";
    }
}

au_verdict au_verdict_of(double u, const au_thresholds *thr)
{
    au_thresholds d = AU_THRESHOLDS_DEFAULT;
    if (!thr)
        thr = &d;
    return u >= thr->bound         ? AU_VERDICT_BOUND
           : u >= thr->significant ? AU_VERDICT_SIGNIFICANT
                                   : AU_VERDICT_NOT_LIMITING;
}

/* A launch whose U has a range.  Its upper end is capped at AU_U_RANGE_CAP: the unit cannot be
 * busy for longer than the SM is active (a range from unknown passes, 1..32, can otherwise reach
 * 1000 %), and saturated references measure U_true up to a few points above 100 % (timing,
 * docs/validation.md); a point estimate above the cap keeps its own value as the upper end.
 * The verdict is the point estimate's when both ends give the same one, else `uncertain` (the
 * report's "Uncertain U" names the two). */
#define AU_U_RANGE_CAP 1.05
void au_range_finish(au_result *res, const au_thresholds *thr)
{
    res->util_hi = fmin(res->util_hi, fmax(res->util, AU_U_RANGE_CAP));
    res->verdict = au_verdict_of(res->util, thr);
    if (au_verdict_of(res->util_lo, thr) != au_verdict_of(res->util_hi, thr))
        res->verdict = AU_VERDICT_UNCERTAIN;
}

void au_result_finish(au_result *res, const au_thresholds *thr, int ranged)
{
    if (res->util > 1)
        res->flags |= AU_F_OVER_100;
    if (ranged)
        au_range_finish(res, thr);
    else
        res->verdict = au_verdict_of(res->util, thr);
}

/* Queue length at which jobs are priced: N (queue mode) or the family's largest n (saturated). */
double au_pricing_n(const au_table *t, const char *family, double N, au_busy_mode busy)
{
    return busy == AU_BUSY_QUEUE ? N : (double)au_table_n_max(t, family);
}

const char *au_busy_mode_name(au_busy_mode m)
{
    return m == AU_BUSY_QUEUE ? "queue" : "saturated";
}
