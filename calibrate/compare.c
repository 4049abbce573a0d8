/*
 * compare.c - checks on measured tables: repeatability of two runs (--compare) and the error of
 * interpolating over c where only a sparse c grid is kept (--check-thinning).  Both read tables
 * through the model library and use its own interpolation, so they test what users get.
 */
#include "cal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT_PCT 2.0 /* the repeatability / thinning bound of issue 3 */
#define WORST     10

typedef struct cell_diff {
    int fam, n, a, c;
    double x, y, pct;
} cell_diff;

typedef struct diff_set {
    cell_diff *v;
    size_t n, cap;
} diff_set;

static int push(diff_set *d, cell_diff c)
{
    if (au_grow(&d->v, &d->cap, d->n, sizeof *d->v, 4096) != 0)
        return au_set_error(AU_E_NOMEM, "out of memory");
    d->v[d->n++] = c;
    return AU_OK;
}

static int cmp_pct(const void *x, const void *y)
{
    double p = ((const cell_diff *)x)->pct, q = ((const cell_diff *)y)->pct;
    return (p > q) - (p < q);
}

/* Sorts v[0, n) by pct and returns its median; *p95 and *max as well. */
static double summarize(cell_diff *v, size_t n, double *p95, double *max)
{
    if (n == 0) {
        *p95 = *max = 0;
        return 0;
    }
    qsort(v, n, sizeof *v, cmp_pct);
    *p95 = v[(size_t)floor(0.95 * (double)(n - 1))].pct;
    *max = v[n - 1].pct;
    return n % 2 ? v[n / 2].pct : 0.5 * (v[n / 2 - 1].pct + v[n / 2].pct);
}

/* Prints the per-family and overall figures of d (d->v is reordered) and the worst cells. */
static double report(diff_set *d, const au_table *t, const char *what, const char *xname, const char *yname, FILE *out)
{
    double p95, max, overall;
    fprintf(out, "family,cells,median_pct,p95_pct,max_pct\n");
    for (size_t f = 0; f < au_table_family_count(t); ++f) {
        /* cells were pushed family by family: each family's cells are contiguous */
        size_t lo = 0, hi;
        while (lo < d->n && d->v[lo].fam != (int)f)
            ++lo;
        hi = lo;
        while (hi < d->n && d->v[hi].fam == (int)f)
            ++hi;
        if (hi == lo)
            continue;
        double med = summarize(d->v + lo, hi - lo, &p95, &max);
        fprintf(out, "%s,%zu,%.3f,%.3f,%.3f\n", au_table_family_name(t, f), hi - lo, med, p95, max);
    }
    overall = summarize(d->v, d->n, &p95, &max);
    fprintf(out, "all,%zu,%.3f,%.3f,%.3f\n", d->n, overall, p95, max);
    fprintf(out, "\nworst cells (%s):\nfamily,n,a,c,%s,%s,diff_pct\n", what, xname, yname);
    for (size_t i = 0; i < d->n && i < WORST; ++i) {
        const cell_diff *c = &d->v[d->n - 1 - i];
        fprintf(out, "%s,%d,%d,%d,%.3f,%.3f,%.3f\n", au_table_family_name(t, (size_t)c->fam), c->n, c->a, c->c, c->x,
                c->y, c->pct);
    }
    return overall;
}

int au_cal_compare(const char *path_a, const char *path_b, FILE *out)
{
    au_table *ta = NULL, *tb = NULL;
    diff_set d = {0};
    size_t missing = 0;
    int rc;
    if ((rc = au_table_load(path_a, &ta)) || (rc = au_table_load(path_b, &tb)))
        goto done;
    const int maxn = au_table_get_meta(ta)->max_warps_per_sm;
    for (size_t f = 0; f < au_table_family_count(ta); ++f) {
        const char *fam = au_table_family_name(ta, f);
        for (int n = 1; n <= maxn; ++n)
            for (int a = 1; a <= AU_A_MAX; ++a)
                for (int c = 0; c <= n; ++c) {
                    au_sample x, y;
                    if (au_table_lookup(ta, fam, n, a, c, &x) != AU_OK)
                        continue;
                    if (au_table_lookup(tb, fam, n, a, c, &y) != AU_OK) {
                        ++missing;
                        continue;
                    }
                    /* relative to the mean of the two: symmetric in A and B */
                    const double pct =
                        200.0 * fabs(x.service_cycles - y.service_cycles) / (x.service_cycles + y.service_cycles);
                    if ((rc = push(&d, (cell_diff){(int)f, n, a, c, x.service_cycles, y.service_cycles, pct})))
                        goto done;
                }
    }
    if (d.n == 0) {
        rc = au_set_error(AU_E_NOTFOUND, "%s and %s have no grid point in common", path_a, path_b);
        goto done;
    }
    fprintf(out, "# repeatability: |A - B| / mean(A, B) of service_cycles per grid point\n");
    fprintf(out, "# A: %s\n# B: %s\n", path_a, path_b);
    if (missing)
        fprintf(out, "# %zu points of A are not in B\n", missing);
    const double overall = report(&d, ta, "largest difference", "s_a", "s_b", out);
    fprintf(out, "\nverdict: median %.3f %% %s %.1f %%\n", overall, overall <= LIMIT_PCT ? "<=" : ">", LIMIT_PCT);
    rc = overall <= LIMIT_PCT ? AU_OK : 1;
done:
    free(d.v);
    au_table_free(ta);
    au_table_free(tb);
    return rc;
}

static const char *path_name(const au_table *t)
{
    return au_table_path(t)[0] ? au_table_path(t) : "table";
}

/* Whether every c = 0..n is present for every (n, a) of family fam. */
static int has_full_c(const au_table *t, const char *fam, int maxn)
{
    au_sample s;
    int any = 0;
    for (int n = 1; n <= maxn; ++n)
        for (int a = 1; a <= AU_A_MAX; ++a) {
            if (au_table_lookup(t, fam, n, a, 0, &s) != AU_OK)
                continue;
            any = 1;
            for (int c = 1; c < n; ++c)
                if (au_table_lookup(t, fam, n, a, c, &s) != AU_OK)
                    return 0;
        }
    return any;
}

/* Interpolation error of keeping only the c values of `cgrid` for every family with a full c
 * grid in t: rows left out are interpolated from the kept ones by au_table_interp. */
static int thin_one(const au_table *t, int cgrid, const char *label, FILE *out, double *overall)
{
    au_table *thin = NULL;
    diff_set d = {0};
    int *cv = NULL, rc;
    const int maxn = au_table_get_meta(t)->max_warps_per_sm;
    *overall = 0;
    cv = malloc(((size_t)maxn + 1) * sizeof *cv);
    if (!cv)
        return au_set_error(AU_E_NOMEM, "out of memory");
    if ((rc = au_table_new(au_table_get_meta(t), &thin)))
        goto done;
    for (size_t f = 0; f < au_table_family_count(t); ++f) {
        const char *fam = au_table_family_name(t, f);
        if (!has_full_c(t, fam, maxn))
            continue;
        for (int n = 1; n <= maxn; ++n)
            for (int a = 1; a <= AU_A_MAX; ++a) {
                au_sample s;
                const int nc = au_cal_c_values(n, cgrid, 0, cv);
                for (int k = 0; k < nc; ++k)
                    if (au_table_lookup(t, fam, n, a, cv[k], &s) == AU_OK &&
                        (rc = au_table_add(thin, fam, n, a, cv[k], &s)))
                        goto done;
            }
    }
    if ((rc = au_table_finalize(thin))) {
        char why[256];
        au_strlcpy(why, au_last_error(), sizeof why); /* the message buffer is reused below */
        rc = au_set_error(AU_E_NOTFOUND,
                          "%s: need family add and others with a full c grid "
                          "(measure with --c-grid full): %s",
                          path_name(t), why);
        goto done;
    }
    for (size_t f = 0; f < au_table_family_count(t); ++f) {
        const char *fam = au_table_family_name(t, f);
        if (!au_table_has_family(thin, fam))
            continue;
        for (int n = 1; n <= maxn; ++n)
            for (int a = 1; a <= AU_A_MAX; ++a)
                for (int c = 1; c < n; ++c) {
                    au_sample s, kept;
                    double est;
                    if (au_table_lookup(t, fam, n, a, c, &s) != AU_OK ||
                        au_table_lookup(thin, fam, n, a, c, &kept) == AU_OK)
                        continue; /* not measured, or kept: no interpolation */
                    if ((rc = au_table_interp(thin, fam, n, a, c, &est, NULL)))
                        goto done;
                    const double pct = 100.0 * fabs(est - s.service_cycles) / s.service_cycles;
                    if ((rc = push(&d, (cell_diff){(int)f, n, a, c, s.service_cycles, est, pct})))
                        goto done;
                }
    }
    fprintf(out, "\n# c grid '%s': |interpolated - measured| / measured over the left-out rows\n", label);
    *overall = report(&d, t, label, "measured", "interpolated", out);
done:
    free(cv);
    free(d.v);
    au_table_free(thin);
    return rc;
}

int au_cal_check_thinning(const char *path_full, FILE *out)
{
    au_table *t = NULL;
    double sparse = 0, ends = 0;
    int rc = au_table_load(path_full, &t);
    if (rc)
        return rc;
    fprintf(out, "# interpolation error of thinned c grids, table %s\n", path_full);
    if ((rc = thin_one(t, AU_CAL_CGRID_SPARSE, "sparse: 0,n/4,n/2,3n/4,n", out, &sparse)) ||
        (rc = thin_one(t, AU_CAL_CGRID_ENDS, "ends: 0,n", out, &ends)))
        goto done;
    fprintf(out, "\nverdict: sparse c grid median error %.3f %% %s %.1f %% (ends only: %.3f %%)\n", sparse,
            sparse <= LIMIT_PCT ? "<=" : ">", LIMIT_PCT, ends);
    rc = sparse <= LIMIT_PCT ? AU_OK : 1;
done:
    au_table_free(t);
    return rc;
}
