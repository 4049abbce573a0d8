/*
 * render_pairs.c - au_compare_pairs_render (atomutil-profile --compare A B --pair KA=KB[:CURE]): a
 * kernel of A beside one of B that a cure made of it, the advisor's prediction for B from A's
 * launches beside B's measurement (docs/advisor.md, "Variant comparison").  Figures are means per
 * launch, so that runs of different lengths compare.
 */
#include "render.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One pair's figures, means per launch (NAN: not known). */
typedef struct pair_figs {
    int cure;
    double time_a, time_b, pred, lo, hi, busy_a, busy_b, busy_pred;
} pair_figs;

static double per(double sum, size_t n)
{
    return n ? sum / (double)n : NAN;
}

static void figures_of(const au_kernel_stat *a, const au_kernel_stat *b, int cure, pair_figs *f)
{
    f->cure = cure >= 0 ? cure : a->best;
    f->time_a = per(a->time_ns, a->timed), f->time_b = per(b->time_ns, b->timed);
    f->busy_a = per(a->busy, a->evaluated), f->busy_b = per(b->busy, b->evaluated);
    int c = f->cure, on = c >= 0 && a->timed > 0;
    f->pred = on ? per(a->cure_ns[c], a->timed) : NAN;
    f->lo = on ? per(a->cure_lo_ns[c], a->timed) : NAN;
    f->hi = on ? per(a->cure_hi_ns[c], a->timed) : NAN;
    f->busy_pred = on ? per(a->cure_busy[c], a->timed) : NAN;
}

static double err_pct(double pred, double meas)
{
    return meas > 0 ? 100 * (pred - meas) / meas : NAN;
}

static void csv_num(FILE *out, double v, const char *spec)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, spec, v);
}

static void csv_row(FILE *out, const au_kernel_pair *p, const au_kernel_stat *a, const au_kernel_stat *b,
                    const pair_figs *f)
{
    au_fput_text(out, p->a, AU_TEXT_CSV);
    fputc(',', out);
    au_fput_text(out, p->b, AU_TEXT_CSV);
    fprintf(out, ",%s,%zu,%zu", f->cure >= 0 ? au_cure_name(f->cure) : "", a->launches, b->launches);
    csv_num(out, f->time_a, "%.0f");
    csv_num(out, f->time_b, "%.0f");
    csv_num(out, f->pred, "%.0f");
    csv_num(out, f->lo, "%.0f");
    csv_num(out, f->hi, "%.0f");
    csv_num(out, err_pct(f->pred, f->time_b), "%.2f");
    fprintf(out, ",%s",
            !isfinite(f->pred) || !isfinite(f->time_b) ? ""
            : f->lo <= f->time_b && f->time_b <= f->hi ? "yes"
                                                       : "no");
    csv_num(out, f->busy_a, "%.1f");
    csv_num(out, f->busy_b, "%.1f");
    csv_num(out, f->busy_pred, "%.1f");
    csv_num(out, err_pct(f->busy_pred, f->busy_b), "%.2f");
    fputc('\n', out);
}

static const char *dur(double ns, char *buf, size_t size)
{
    return isfinite(ns) ? au_duration_text(ns, buf, size) : strcpy(buf, "-");
}

static void table_row(FILE *out, const au_kernel_pair *p, const au_kernel_stat *a, const au_kernel_stat *b,
                      const pair_figs *f)
{
    char na[96], nb[96], ta[24], tb[24], tp[24], lo[24], hi[24];
    au_kernel_fit(p->a, na, sizeof na, 40, 0);
    au_kernel_fit(p->b, nb, sizeof nb, 40, 0);
    fprintf(out, "\n%s -> %s (%zu and %zu launches), cure %s%s\n", na, nb, a->launches, b->launches,
            f->cure >= 0 ? au_cure_name(f->cure) : "none", p->cure < 0 ? ", A's best" : "");
    if (f->cure < 0) {
        fprintf(out, "  no cure applies to A's launches (docs/advisor.md): nothing to predict\n");
        return;
    }
    fprintf(out, "  time: A %s, B %s, predicted %s (%s..%s)", dur(f->time_a, ta, sizeof ta),
            dur(f->time_b, tb, sizeof tb), dur(f->pred, tp, sizeof tp), dur(f->lo, lo, sizeof lo),
            dur(f->hi, hi, sizeof hi));
    if (isfinite(f->pred) && isfinite(f->time_b))
        fprintf(out, ": %+.1f %% off, %s the range", err_pct(f->pred, f->time_b),
                f->lo <= f->time_b && f->time_b <= f->hi ? "in" : "out of");
    fprintf(out, "\n  busy cycles per SM: A %.0f, B %.0f, predicted %.0f", f->busy_a, f->busy_b, f->busy_pred);
    if (isfinite(f->busy_pred) && f->busy_b > 0)
        fprintf(out, ": %+.1f %% off", err_pct(f->busy_pred, f->busy_b));
    fputc('\n', out);
}

int au_compare_pairs_render(const au_report *a, const au_report *b, const au_kernel_pair *pairs, size_t n,
                            au_format fmt, FILE *out)
{
    if (!a || !b || !pairs || !out || (fmt != AU_FMT_TABLE && fmt != AU_FMT_CSV))
        return au_set_error(AU_E_INVAL, "au_compare_pairs_render: invalid argument");
    au_summary ka, kb;
    memset(&kb, 0, sizeof kb);
    int rc = au_summary_make(a, &ka);
    if (rc == AU_OK)
        rc = au_summary_make(b, &kb);
    for (size_t i = 0; rc == AU_OK && i < n; ++i)
        if (!au_summary_find(&ka, pairs[i].a) || !au_summary_find(&kb, pairs[i].b))
            rc = au_set_error(AU_E_NOTFOUND, "--pair %s=%s: no kernel %s in %s", pairs[i].a, pairs[i].b,
                              au_summary_find(&ka, pairs[i].a) ? pairs[i].b : pairs[i].a,
                              au_summary_find(&ka, pairs[i].a) ? b->source : a->source);
    if (rc == AU_OK) {
        if (fmt == AU_FMT_CSV)
            fputs("kernel_a,kernel_b,cure,launches_a,launches_b,time_a_ns,time_b_ns,time_b_predicted_ns,"
                  "time_b_predicted_lo_ns,time_b_predicted_hi_ns,time_error_pct,in_range,busy_a_cycles,"
                  "busy_b_cycles,busy_b_predicted_cycles,busy_error_pct\n",
                  out);
        else {
            fputs("A: ", out);
            au_fput_text(out, a->source, AU_TEXT_PLAIN);
            fputs("\nB: ", out);
            au_fput_text(out, b->source, AU_TEXT_PLAIN);
            fputs("\nper pair, means per launch: B measured beside the advisor's prediction for B from A's "
                  "launches\n(docs/advisor.md, \"Variant comparison\")\n",
                  out);
        }
        for (size_t i = 0; i < n; ++i) {
            const au_kernel_stat *sa = au_summary_find(&ka, pairs[i].a), *sb = au_summary_find(&kb, pairs[i].b);
            pair_figs f;
            figures_of(sa, sb, pairs[i].cure, &f);
            (fmt == AU_FMT_CSV ? csv_row : table_row)(out, &pairs[i], sa, sb, &f);
        }
        rc = ferror(out) ? au_set_error(AU_E_IO, "write error on output") : AU_OK;
    }
    au_summary_free(&ka);
    au_summary_free(&kb);
    return rc;
}
