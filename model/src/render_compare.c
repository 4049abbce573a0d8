/*
 * render_compare.c - au_compare_render (atomutil-profile --compare): kernel-by-kernel comparison of
 * two evaluated reports, as a human table or CSV, beside the report's own renderers.  Launches are
 * grouped into kernels as the summary groups them (au_summary_make: the name without its parameter list, which
 * ncu and the C++ runtime spell differently, "const uchar4 *" vs "uchar4 const*"; the whole name
 * however long); per kernel: launches, summed GPU time (or active cycles when a side has no
 * duration), summed jobs, a = summed wavefronts / (summed jobs + CAS jobs), U = summed busy /
 * summed active cycles (active-time weighted) over its evaluated launches, and that U's verdict.
 */
#include "render.h"

#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double pct_change(double a, double b)
{
    return a > 0 ? (b - a) / a * 100 : NAN;
}

/* One figure of a row.  Where it does not exist (the kernel is on one side only, has no jobs or no
 * evaluated launch), "-" in the table and an empty CSV field, never "nan". */
static void fig(FILE *out, au_format fmt, double v, const char *table_spec, int width, const char *csv_spec)
{
    if (fmt == AU_FMT_CSV) {
        fputc(',', out);
        if (isfinite(v))
            fprintf(out, csv_spec, v);
    } else if (isfinite(v)) {
        fprintf(out, table_spec, v);
    } else {
        fprintf(out, "%*s", width, "-");
    }
}

/* A row's figures (fig) in the narrow table: times as durations ("60.29 us") or cycles. */
static void narrow_time(FILE *out, double v, int ns)
{
    char t[32];
    if (!isfinite(v))
        snprintf(t, sizeof t, "-");
    else if (ns)
        au_duration_text(v, t, sizeof t);
    else
        snprintf(t, sizeof t, "%.0f cyc", v);
    fprintf(out, " %9s", t);
}

static void row(FILE *out, au_format fmt, int wide, au_names *nm, size_t k, const au_kernel_stat *a,
                const au_kernel_stat *b)
{
    const char *kernel = nm->full[k];
    /* GPU time where both sides have it, else active cycles per SM on both sides: one unit */
    int ns = (!a || a->time_ns > 0) && (!b || b->time_ns > 0);
    double ta = a ? (ns ? a->time_ns : a->active) : NAN;
    double tb = b ? (ns ? b->time_ns : b->active) : NAN;
    const char *unit = ns ? "ns" : "cycles";
    double ua = a && a->active > 0 ? a->busy / a->active * 100 : NAN;
    double ub = b && b->active > 0 ? b->busy / b->active * 100 : NAN;
    /* passes per job, as in the model: a CAS-class pass counts two wavefronts */
    double aa = a && a->jobs > 0 ? a->wavefronts / (a->jobs + a->cas_jobs) : NAN;
    double ab = b && b->jobs > 0 ? b->wavefronts / (b->jobs + b->cas_jobs) : NAN;
    const char *va = a ? au_verdict_name(a->verdict) : "absent", *vb = b ? au_verdict_name(b->verdict) : "absent";
    if (fmt == AU_FMT_CSV) {
        au_fput_text(out, kernel, AU_TEXT_CSV);
        fprintf(out, ",%zu,%zu", a ? a->launches : 0, b ? b->launches : 0);
    } else {
        au_names_put(nm, k, 1, out);
    }
    if (fmt == AU_FMT_CSV || wide) {
        fig(out, fmt, ta, " %10.0f", 11, "%.0f");
        fig(out, fmt, tb, " %10.0f", 11, "%.0f");
        fprintf(out, fmt == AU_FMT_CSV ? ",%s" : " %-6s", unit);
    } else {
        narrow_time(out, ta, ns);
        narrow_time(out, tb, ns);
    }
    fig(out, fmt, pct_change(ta, tb), " %+7.1f%%", 9, "%.2f");
    if (fmt == AU_FMT_CSV || wide) {
        fig(out, fmt, a ? a->jobs : NAN, " %9.0f", 10, "%.0f");
        fig(out, fmt, b ? b->jobs : NAN, " %9.0f", 10, "%.0f");
    }
    if (fmt == AU_FMT_CSV || wide) {
        fig(out, fmt, aa, " %6.2f", 7, "%.4f");
        fig(out, fmt, ab, " %6.2f", 7, "%.4f");
        fig(out, fmt, ua, " %6.1f", 7, "%.3f");
        fig(out, fmt, ub, " %6.1f", 7, "%.3f");
        fig(out, fmt, ub - ua, " %+6.1f", 7, "%.3f");
        fprintf(out, fmt == AU_FMT_CSV ? ",%s,%s\n" : "  %s -> %s\n", va, vb);
        return;
    }
    /* a <= 32 and U <= 100 fit five characters: the widest row stays within AU_REPORT_COLUMNS (no
     * CSV gets here; its specs keep gcc's check of fprintf's format quiet) */
    fig(out, fmt, aa, " %5.2f", 6, "%.4f");
    fig(out, fmt, ab, " %5.2f", 6, "%.4f");
    fig(out, fmt, ua, " %5.1f", 6, "%.3f");
    fig(out, fmt, ub, " %5.1f", 6, "%.3f");
    fig(out, fmt, ub - ua, " %+5.1f", 6, "%.3f");
    fprintf(out, " %s -> %s\n", va, vb);
}

/* The rows: A's kernels in A's order, then those of B only: their names in full[], their sides in sa[], sb[]. */
static size_t pair_kernels(const au_summary *ka, const au_summary *kb, const char **full, const au_kernel_stat **sa,
                           const au_kernel_stat **sb)
{
    size_t n = 0;
    for (size_t i = 0; i < ka->n; ++i, ++n) {
        full[n] = ka->k[i].name;
        sa[n] = &ka->k[i];
        sb[n] = au_summary_find(kb, ka->k[i].name);
    }
    for (size_t i = 0; i < kb->n; ++i)
        if (!au_summary_find(ka, kb->k[i].name)) {
            full[n] = kb->k[i].name;
            sa[n] = NULL;
            sb[n++] = &kb->k[i];
        }
    return n;
}

static void head(FILE *out, au_format fmt, const au_report *a, const au_report *b, int width)
{
    if (fmt == AU_FMT_CSV) {
        fputs("kernel,launches_a,launches_b,time_a,time_b,time_unit,time_change_pct,jobs_a,jobs_b,"
              "a_passes_per_job_a,a_passes_per_job_b,util_pct_a,util_pct_b,util_change_pts,"
              "verdict_a,verdict_b\n",
              out);
        return;
    }
    fputs("A: ", out);
    au_fput_text(out, a->source, AU_TEXT_PLAIN);
    fputs("\nB: ", out);
    au_fput_text(out, b->source, AU_TEXT_PLAIN);
    if (a->wide) {
        fprintf(out, "\ntime: summed GPU time in ns, or summed active cycles per SM where a side has no "
                     "duration; U: active-time weighted over a kernel's launches; -: not on that side, or "
                     "no such figure\n\n");
        fprintf(out, "%-*s %10s %10s %-6s %8s %9s %9s %6s %6s %6s %6s %6s  %s\n", width, "kernel", "time A", "time B",
                "unit", "change", "jobs A", "jobs B", "a A", "a B", "U% A", "U% B", "dU", "verdict A -> B");
        return;
    }
    fprintf(out, "\ntime: summed GPU time, or summed active cycles per SM (cyc) where a side has no duration; a: "
                 "serialized passes\nper job; U: busy / active cycles, weighted by active time over a kernel's "
                 "launches; dU: U B - U A in points;\n-: not on that side, or no such figure; --wide adds the jobs "
                 "of each side\n\n");
    fprintf(out, "%-*s %9s %9s %8s %5s %5s %5s %5s %5s %s\n", width, "kernel", "time A", "time B", "change", "a A",
            "a B", "U% A", "U% B", "dU", "verdict A -> B");
}

int au_compare_render(const au_report *a, const au_report *b, au_format fmt, FILE *out)
{
    if (!a || !b || !out || (fmt != AU_FMT_TABLE && fmt != AU_FMT_CSV))
        return au_set_error(AU_E_INVAL, "au_compare_render: invalid argument");
    au_summary ka, kb;
    au_names nm;
    memset(&kb, 0, sizeof kb);
    if (au_summary_make(a, &ka) != AU_OK)
        return AU_E_NOMEM;
    size_t m = ka.n + (au_summary_make(b, &kb) == AU_OK ? kb.n : 0) + 1;
    const char **full = malloc(m * sizeof *full);
    const au_kernel_stat **sa = malloc(m * sizeof *sa), **sb = malloc(m * sizeof *sb);
    int rc = au_set_error(AU_E_NOMEM, "out of memory");
    if (kb.k && full && sa && sb) {
        size_t n = pair_kernels(&ka, &kb, full, sa, sb);
        if (au_names_init(&nm, full, n, a->name_width) == AU_OK) {
            head(out, fmt, a, b, (int)nm.width);
            for (size_t i = 0; i < n; ++i)
                row(out, fmt, a->wide, &nm, i, sa[i], sb[i]);
            if (fmt != AU_FMT_CSV)
                au_names_notes(&nm, a->wide ? 0 : AU_REPORT_COLUMNS, out);
            au_names_free(&nm);
            rc = ferror(out) ? au_set_error(AU_E_IO, "write error on output") : AU_OK;
        }
    }
    free(full);
    free(sa);
    free(sb);
    au_summary_free(&ka);
    au_summary_free(&kb);
    return rc;
}
