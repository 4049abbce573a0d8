/*
 * results.c - from raw clock readings to a table: service time of one timed pass (with the
 * rejection rules), robust statistics over repetitions, metadata, and table assembly through the
 * model library's builder.  Pure C: tested without a GPU.
 */
#include "cal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *au_cal_reject_name(int reason)
{
    switch (reason) {
    case AU_CAL_REJ_NONE: return "ok";
    case AU_CAL_REJ_NOT_RUN: return "not run";
    case AU_CAL_REJ_SPLIT: return "blocks on different SMs";
    case AU_CAL_REJ_SKEW: return "blocks started apart";
    case AU_CAL_REJ_CLOCK: return "bad clock reading";
    default: return "unknown";
    }
}

long long au_cal_skew(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block)
{
    if (it->n <= warps_per_block)
        return 0;
    const long long d = slot[0].start - slot[1].start;
    return d < 0 ? -d : d;
}

int au_cal_item_service(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block,
                        double *service)
{
    const int two = it->n > warps_per_block; /* n > one block: both blocks measured */
    if (slot[0].warps + slot[1].warps != it->n || (two && slot[1].warps == 0))
        return AU_CAL_REJ_NOT_RUN;
    if (two && slot[0].smid != slot[1].smid)
        return AU_CAL_REJ_SPLIT;
    if (au_cal_skew(slot, it, warps_per_block) > AU_CAL_SKEW_MAX)
        return AU_CAL_REJ_SKEW;
    long long start = slot[0].start, end = slot[0].end;
    if (two) {
        start = slot[1].start < start ? slot[1].start : start;
        end = slot[1].end > end ? slot[1].end : end;
    }
    if (end <= start || slot[0].end == 0 || (two && slot[1].end == 0))
        return AU_CAL_REJ_CLOCK;
    *service = (double)(end - start) / ((double)it->n * (double)it->k);
    return AU_CAL_REJ_NONE;
}

static int cmp_double(const void *x, const void *y)
{
    double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int au_cal_stats(double *v, int n, au_sample *out)
{
    if (n < 1)
        return au_set_error(AU_E_INVAL, "no samples");
    double *dev = malloc((size_t)n * sizeof *dev);
    if (!dev)
        return au_set_error(AU_E_NOMEM, "out of memory");
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    const double med = median_sorted(v, n);
    for (int i = 0; i < n; ++i)
        dev[i] = v[i] > med ? v[i] - med : med - v[i];
    qsort(dev, (size_t)n, sizeof *dev, cmp_double);
    out->service_cycles = med;
    out->min_cycles = v[0];
    out->max_cycles = v[n - 1];
    out->mad_cycles = median_sorted(dev, n);
    free(dev);
    return AU_OK;
}

void au_cal_slug(const char *name, char *out, size_t size)
{
    size_t k = 0;
    int dash = 0;
    if (size == 0)
        return;
    for (const char *s = name; *s && k + 1 < size; ++s) {
        const unsigned char ch = (unsigned char)*s;
        if (isalnum(ch)) {
            if (dash && k > 0 && k + 1 < size - 1)
                out[k++] = '-';
            out[k++] = (char)tolower(ch);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[k] = '\0';
    if (k == 0)
        au_strlcpy(out, "gpu", size);
}

void au_cal_fill_meta(au_table_meta *m, const au_cal_devinfo *d, int burst, int jobs, int reps,
                      double sm_clock_mhz, const char *date, const char *note)
{
    memset(m, 0, sizeof *m);
    au_strlcpy(m->gpu_name, d->name, sizeof m->gpu_name);
    m->cc_major = d->cc_major;
    m->cc_minor = d->cc_minor;
    m->sm_count = d->sm_count;
    m->max_warps_per_sm = d->max_warps;
    au_strlcpy(m->method, burst ? "burst" : "steady", sizeof m->method);
    m->sm_clock_mhz = sm_clock_mhz > 0 ? sm_clock_mhz : 0;
    au_strlcpy(m->cuda_version, d->cuda_version, sizeof m->cuda_version);
    au_strlcpy(m->driver_version, d->driver_version, sizeof m->driver_version);
    m->jobs_per_warp = jobs;
    m->repetitions = reps;
    au_strlcpy(m->date, date ? date : "", sizeof m->date);
    au_strlcpy(m->tool_version, AU_VERSION_STRING, sizeof m->tool_version);
    au_strlcpy(m->status, "measured", sizeof m->status);
    au_strlcpy(m->note, note ? note : "", sizeof m->note);
}

int au_cal_write_table(const au_table_meta *meta, const au_cal_plan *p, const double *samples,
                       int reps, const char *path, size_t *rows_out)
{
    au_table *t = NULL;
    double *v = malloc((size_t)reps * sizeof *v);
    int rc = v ? au_table_new(meta, &t) : au_set_error(AU_E_NOMEM, "out of memory");
    if (rc)
        goto done;
    for (size_t i = 0; i < p->npts; ++i) {
        const au_cal_point *pt = &p->pts[i];
        au_sample s;
        memcpy(v, samples + i * (size_t)reps, (size_t)reps * sizeof *v);
        if ((rc = au_cal_stats(v, reps, &s)) ||
            (rc = au_table_add(t, au_cal_families[pt->family].name, pt->n, pt->a, pt->c, &s)))
            goto done;
    }
    if ((rc = au_table_finalize(t)) || (rc = au_table_save(t, path)))
        goto done;
    if (rows_out)
        *rows_out = p->npts;
done:
    free(v);
    au_table_free(t);
    return rc;
}
