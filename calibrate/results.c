/*
 * results.c - from raw clock readings to a table: service time of one timed pass (with the
 * rejection rules; an ATOMS pass and a dsmem pass), robust statistics over repetitions, metadata,
 * and table assembly through the model library's builder, and merging newly measured families
 * into an existing table (--merge).  Pure C: tested without a GPU.
 */
#include "cal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *au_cal_reject_name(int reason)
{
    switch (reason) {
    case AU_CAL_REJ_NONE: return "ok";
    case AU_CAL_REJ_NOT_RUN: return "not run";
    case AU_CAL_REJ_SPLIT: return "blocks on different SMs";
    case AU_CAL_REJ_SKEW: return "blocks started apart";
    case AU_CAL_REJ_CLOCK: return "bad clock reading";
    case AU_CAL_REJ_SHARED_SM: return "two blocks on one SM";
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

int au_cal_item_service(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block, double *service)
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

int au_cal_dsmem_service(const long long *cycles, const int *smid, int blocks, int n, int k, int hot, double *service)
{
    int why = AU_CAL_REJ_NONE;
    int *ids = malloc((size_t)(blocks > 0 ? blocks : 1) * sizeof *ids);
    double *v = malloc((size_t)(blocks > 0 ? blocks : 1) * sizeof *v);
    if (!ids || !v || blocks < 1 || n < 1 || k < 1) {
        why = AU_CAL_REJ_NOT_RUN;
        goto done;
    }
    for (int b = 0; b < blocks; ++b) {
        if (smid[b] < 0) {
            why = AU_CAL_REJ_NOT_RUN;
            goto done;
        }
        if (cycles[b] <= 0) {
            why = AU_CAL_REJ_CLOCK;
            goto done;
        }
        ids[b] = smid[b];
        v[b] = (double)cycles[b] / ((double)n * (double)k);
    }
    int nv = blocks;
    if (hot > 1) {
        /* a cluster is done when its receiver has served every block's jobs: its last block's
         * cycles over the cluster's jobs (a 1-D grid's clusters are consecutive blocks) */
        if (blocks % hot) {
            why = AU_CAL_REJ_NOT_RUN;
            goto done;
        }
        nv = blocks / hot;
        for (int c = 0; c < nv; ++c) { /* in place: cluster c's blocks lie at c * hot and on */
            double m = v[c * hot];
            for (int b = c * hot + 1; b < (c + 1) * hot; ++b)
                m = v[b] > m ? v[b] : m;
            v[c] = m / hot;
        }
    }
    /* the dynamic shared memory of a block keeps a second one off its SM; %smid proves it */
    qsort(ids, (size_t)blocks, sizeof *ids, au_cmp_int);
    for (int b = 1; b < blocks; ++b)
        if (ids[b] == ids[b - 1]) {
            why = AU_CAL_REJ_SHARED_SM;
            goto done;
        }
    qsort(v, (size_t)nv, sizeof *v, cmp_double);
    *service = median_sorted(v, nv);
done:
    free(ids);
    free(v);
    return why;
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

void au_cal_fill_meta(au_table_meta *m, const au_cal_devinfo *d, int burst, int jobs, int reps, double sm_clock_mhz,
                      const char *date, const char *note)
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

void au_cal_set_latency(au_table_meta *m, const au_cal_latency *lat)
{
    if (lat && lat->l2_hit_cycles > 0)
        m->l2_hit_latency_cycles = lat->l2_hit_cycles;
    if (lat && lat->dram_cycles > 0)
        m->dram_latency_cycles = lat->dram_cycles;
    if (lat && lat->match_cycles_per_value > 0 && lat->match_latency_per_value > 0) {
        m->match_any_cycles_per_value = lat->match_cycles_per_value;
        m->match_any_latency_cycles_per_value = lat->match_latency_per_value;
    }
}

/* Adds one row per point of p to t: the statistics of its reps samples. */
static int add_plan_rows(au_table *t, const au_cal_plan *p, const double *samples, int reps)
{
    int rc = AU_OK;
    double *v = malloc((size_t)reps * sizeof *v);
    if (!v)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t i = 0; i < p->npts && rc == AU_OK; ++i) {
        const au_cal_point *pt = &p->pts[i];
        au_sample s;
        memcpy(v, samples + i * (size_t)reps, (size_t)reps * sizeof *v);
        if ((rc = au_cal_stats(v, reps, &s)) == AU_OK)
            rc = au_table_add(t, au_cal_families[pt->family].name, pt->n, pt->a, pt->c, &s);
    }
    free(v);
    return rc;
}

int au_cal_write_table(const au_table_meta *meta, const au_cal_plan *p, const double *samples, int reps,
                       const char *path, size_t *rows_out)
{
    au_table *t = NULL;
    int rc;
    if ((rc = au_table_new(meta, &t)) || (rc = add_plan_rows(t, p, samples, reps)) || (rc = au_table_finalize(t)) ||
        (rc = au_table_save(t, path)))
        goto done;
    if (rows_out)
        *rows_out = p->npts;
done:
    au_table_free(t);
    return rc;
}

int au_cal_merge_check(const au_table *existing, const au_cal_devinfo *d, int burst)
{
    const au_table_meta *m = au_table_get_meta(existing);
    const char *path = au_table_path(existing)[0] ? au_table_path(existing) : "the table";
    if (strcasecmp(m->gpu_name, d->name) != 0 || m->cc_major != d->cc_major || m->cc_minor != d->cc_minor)
        return au_set_error(AU_E_INVAL,
                            "--merge %s: it is a table of %s (compute capability %d.%d), "
                            "this GPU is %s (%d.%d): measure on that GPU",
                            path, m->gpu_name, m->cc_major, m->cc_minor, d->name, d->cc_major, d->cc_minor);
    if (strcmp(m->method, burst ? "burst" : "steady") != 0)
        return au_set_error(AU_E_INVAL, "--merge %s: it holds the %s method, this run the %s one", path, m->method,
                            burst ? "burst" : "steady");
    if (m->max_warps_per_sm != d->max_warps)
        return au_set_error(AU_E_INVAL, "--merge %s: max_warps_per_sm %d, this GPU has %d", path, m->max_warps_per_sm,
                            d->max_warps);
    return AU_OK;
}

/* Whether family name fam is measured by plan p. */
static int plan_has_family(const au_cal_plan *p, const char *fam)
{
    for (size_t i = 0; i < p->npts; ++i)
        if (strcmp(au_cal_families[p->pts[i].family].name, fam) == 0)
            return 1;
    return 0;
}

int au_cal_merge_table(const au_table *existing, const char *note_add, const au_cal_latency *lat, const au_cal_plan *p,
                       const double *samples, int reps, const char *path, size_t *rows_out)
{
    au_table *t = NULL;
    au_table_meta meta = *au_table_get_meta(existing);
    au_cal_set_latency(&meta, lat);
    size_t rows = 0;
    int rc;
    /* the new note: the old one, cut where both do not fit (after its last "; " or ' ' that
     * leaves room, then "..."), then "; " and note_add */
    const size_t room = sizeof meta.note - 1, add = note_add ? strlen(note_add) : 0;
    if (add) {
        char old[sizeof meta.note];
        au_strlcpy(old, meta.note, sizeof old);
        const size_t fit = add + 2 < room ? room - add - 2 : 0; /* beside "; " and note_add */
        if (strlen(old) > fit) {
            size_t cut = fit >= 3 ? fit - 3 : 0;
            while (cut > 0 && old[cut] != ' ')
                --cut;
            while (cut > 0 && strchr(" ;,", old[cut - 1]))
                --cut;
            snprintf(old + cut, sizeof old - cut, "%s", cut ? "..." : "");
        }
        snprintf(meta.note, sizeof meta.note, "%s%s%s", old, old[0] ? "; " : "", note_add);
    }
    if ((rc = au_table_new(&meta, &t)))
        goto done;
    /* existing's rows of the families p does not measure; their grids lie within n 1..n_max,
     * a 1..a_max, c 0..n */
    for (size_t f = 0; f < au_table_family_count(existing); ++f) {
        const char *fam = au_table_family_name(existing, f);
        if (plan_has_family(p, fam))
            continue;
        const int nmax = au_table_n_max(existing, fam), amax = au_table_a_max(existing, fam);
        for (int n = 1; n <= nmax; ++n)
            for (int a = 1; a <= amax; ++a)
                for (int c = 0; c <= n; ++c) {
                    au_sample s;
                    if (au_table_lookup(existing, fam, n, a, c, &s) != AU_OK)
                        continue;
                    if ((rc = au_table_add(t, fam, n, a, c, &s)))
                        goto done;
                    ++rows;
                }
    }
    if ((rc = add_plan_rows(t, p, samples, reps)) || (rc = au_table_finalize(t)) || (rc = au_table_save(t, path)))
        goto done;
    if (rows_out)
        *rows_out = rows + p->npts;
done:
    au_table_free(t);
    return rc;
}
