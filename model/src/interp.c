/*
 * interp.c - S(n, a, c) for real-valued arguments.
 *
 * Along c: piecewise linear over the measured c of a grid pair, at the CAS share c/n carried to
 * each grid n.  Along a: linear in S.  Along n: linear in the queue's total time T = n * S, then
 * S = T / n (the source paper's rule; it follows the ~1/n fall of S at low load far better than
 * interpolating S).  Exact at grid points, continuous inside the grid, clamped outside.
 */
#include "table_impl.h"

#include <math.h>

/* Index i with v[i] <= x <= v[i+1] (x already clamped to [v[0], v[n-1]]); w = weight of v[i+1]. */
static void bracket(const int *v, int n, double x, int *i, double *w)
{
    int k = 0;
    while (k + 1 < n - 1 && v[k + 1] <= x)
        ++k;
    if (n == 1) {
        *i = 0;
        *w = 0;
        return;
    }
    if (x >= v[n - 1]) {
        *i = n - 2;
        *w = 1;
        return;
    }
    *i = k;
    *w = (x - v[k]) / (double)(v[k + 1] - v[k]);
}

/* S at grid pair (i, j) for `share` of its n jobs being CAS. */
static double at_pair(const au_table *t, const au_family *f, int i, int j, double share)
{
    const au_cell *cell = &f->cell[i * f->na + j];
    double c = share * f->nv[i];
    size_t k = cell->lo;
    while (k + 2 < cell->hi && t->rows[k + 1].c <= c)
        ++k;
    if (cell->hi - cell->lo == 1)
        return t->rows[k].s.service_cycles;
    const au_row *p = &t->rows[k], *q = &t->rows[k + 1];
    if (c <= p->c)
        return p->s.service_cycles;
    if (c >= q->c)
        return q->s.service_cycles;
    double w = (c - p->c) / (double)(q->c - p->c);
    return p->s.service_cycles * (1 - w) + q->s.service_cycles * w;
}

int au_table_interp(const au_table *t, const char *family, double n, double a, double c, double *service_cycles,
                    au_flags *flags)
{
    au_flags fl = 0;
    if (!t || !family || !service_cycles || !t->finalized)
        return au_set_error(AU_E_INVAL, "au_table_interp: invalid argument");
    if (!isfinite(n) || !isfinite(a) || !isfinite(c))
        return au_set_error(AU_E_INVAL, "au_table_interp: non-finite argument");
    const au_family *f = au_table_family(t, family);
    if (!f)
        return au_set_error(AU_E_NOTFOUND, "table has no family '%s'", family);

    /* CAS share from the caller's n before n is clamped: c/n is what the counters measure */
    double share = n > 0 ? c / n : 0;
    if (share < 0 || share > 1) {
        share = share < 0 ? 0 : 1;
        fl |= AU_F_CLAMP_C;
    }
    if (n < f->nv[0]) {
        n = f->nv[0];
        fl |= AU_F_CLAMP_N_LOW;
    } else if (n > f->nv[f->nn - 1]) {
        n = f->nv[f->nn - 1];
        fl |= AU_F_CLAMP_N_HIGH;
    }
    if (a < f->av[0] || a > f->av[f->na - 1]) {
        a = a < f->av[0] ? f->av[0] : f->av[f->na - 1];
        fl |= AU_F_CLAMP_A;
    }
    int i, j;
    double wn, wa;
    bracket(f->nv, f->nn, n, &i, &wn);
    bracket(f->av, f->na, a, &j, &wa);
    int i1 = f->nn > 1 ? i + 1 : i, j1 = f->na > 1 ? j + 1 : j;
    /* along a at both grid n, then along n of T = n * S */
    double s0 = at_pair(t, f, i, j, share) * (1 - wa) + at_pair(t, f, i, j1, share) * wa;
    double s1 = at_pair(t, f, i1, j, share) * (1 - wa) + at_pair(t, f, i1, j1, share) * wa;
    double T = f->nv[i] * s0 * (1 - wn) + f->nv[i1] * s1 * wn;
    *service_cycles = T / n;
    if (flags)
        *flags |= fl;
    return AU_OK;
}
