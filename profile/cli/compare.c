/*
 * compare.c - kernel-by-kernel comparison of two evaluated reports.  Launches are grouped by
 * kernel name without its parameter list (ncu and the C++ runtime spell parameter types
 * differently: "const uchar4 *" vs "uchar4 const*"), the whole name however long; per kernel:
 * launches, summed GPU time (or active cycles when the source has no duration), summed jobs,
 * a = summed wavefronts / (summed jobs + CAS jobs), U = summed busy / summed active cycles
 * (active-time weighted) over its evaluated launches, and the verdict of that U.
 */
#include "compare.h"

#include "atomutil/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *kernel; /* short name, as in the file: the key (names that share a long prefix differ) */
    int launches, unknown;
    double time_ns, jobs, cas, wave, busy, active;
    au_verdict verdict;
} kstat;

static void kstats_free(kstat *v, size_t n)
{
    for (size_t i = 0; v && i < n; ++i)
        free(v[i].kernel);
    free(v);
}

static const kstat *find(const kstat *v, size_t n, const char *kernel)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(v[i].kernel, kernel) == 0)
            return &v[i];
    return NULL;
}

static int group(const au_report *r, kstat **out, size_t *n)
{
    kstat *v = calloc(r->count ? r->count : 1, sizeof *v);
    if (!v)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        char *name = au_kernel_short_dup(l->kernel);
        if (!name) {
            kstats_free(v, k);
            return -1;
        }
        kstat *s = (kstat *)find(v, k, name);
        if (s)
            free(name);
        else {
            s = &v[k++];
            s->kernel = name;
        }
        s->launches++;
        if ((l->res.flags & AU_F_UNUSABLE) || l->res.verdict == AU_VERDICT_UNKNOWN) {
            s->unknown++;
            continue;
        }
        s->time_ns += l->duration_ns > 0 ? l->duration_ns : 0;
        s->jobs += l->ctr.jobs;
        s->cas += l->ctr.cas_jobs;
        s->wave += l->ctr.wavefronts;
        s->busy += l->res.busy;
        s->active += l->res.active;
    }
    for (size_t j = 0; j < k; ++j) {
        kstat *s = &v[j];
        double u = s->active > 0 ? s->busy / s->active : 0;
        s->verdict = s->unknown == s->launches ? AU_VERDICT_UNKNOWN : au_verdict_of(u, &r->thr);
    }
    *out = v;
    *n = k;
    return 0;
}

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

#define NAME_COLS 32

/* The kernel column of the table: a name wider than it is cut and numbered ("name~[2]"), and
 * given in full after the table (names of templates share long prefixes). */
static void name_cell(FILE *out, const char *kernel, int *cut)
{
    char cell[NAME_COLS * 4 + 16], tag[16] = "";
    size_t cols = NAME_COLS;
    if (au_text_width(kernel) > NAME_COLS) {
        snprintf(tag, sizeof tag, "[%d]", ++*cut);
        cols -= strlen(tag);
    }
    au_text_fit(kernel, cell, sizeof cell, cols, 1);
    fprintf(out, "%s%s", cell, tag);
}

static void row(FILE *out, au_format fmt, const char *kernel, const kstat *a, const kstat *b, int *cut)
{
    /* GPU time where both sides have it, else active cycles per SM on both sides: one unit */
    int ns = (!a || a->time_ns > 0) && (!b || b->time_ns > 0);
    double ta = a ? (ns ? a->time_ns : a->active) : NAN;
    double tb = b ? (ns ? b->time_ns : b->active) : NAN;
    const char *unit = ns ? "ns" : "cycles";
    double ua = a && a->active > 0 ? a->busy / a->active * 100 : NAN;
    double ub = b && b->active > 0 ? b->busy / b->active * 100 : NAN;
    /* passes per job, as in the model: a CAS-class pass counts two wavefronts */
    double aa = a && a->jobs > 0 ? a->wave / (a->jobs + a->cas) : NAN;
    double ab = b && b->jobs > 0 ? b->wave / (b->jobs + b->cas) : NAN;
    const char *va = a ? au_verdict_name(a->verdict) : "absent", *vb = b ? au_verdict_name(b->verdict) : "absent";
    if (fmt == AU_FMT_CSV) {
        au_fput_text(out, kernel, AU_TEXT_CSV);
        fprintf(out, ",%d,%d", a ? a->launches : 0, b ? b->launches : 0);
    } else {
        name_cell(out, kernel, cut);
    }
    fig(out, fmt, ta, " %10.0f", 11, "%.0f");
    fig(out, fmt, tb, " %10.0f", 11, "%.0f");
    fprintf(out, fmt == AU_FMT_CSV ? ",%s" : " %-6s", unit);
    fig(out, fmt, pct_change(ta, tb), " %+7.1f%%", 9, "%.2f");
    fig(out, fmt, a ? a->jobs : NAN, " %9.0f", 10, "%.0f");
    fig(out, fmt, b ? b->jobs : NAN, " %9.0f", 10, "%.0f");
    fig(out, fmt, aa, " %6.2f", 7, "%.4f");
    fig(out, fmt, ab, " %6.2f", 7, "%.4f");
    fig(out, fmt, ua, " %6.1f", 7, "%.3f");
    fig(out, fmt, ub, " %6.1f", 7, "%.3f");
    fig(out, fmt, ub - ua, " %+6.1f", 7, "%.3f");
    fprintf(out, fmt == AU_FMT_CSV ? ",%s,%s\n" : "  %s -> %s\n", va, vb);
}

int au_compare_render(const au_report *a, const au_report *b, au_format fmt, FILE *out)
{
    kstat *ka = NULL, *kb = NULL;
    size_t na = 0, nb = 0;
    /* the rows: A's kernels in A's order, then those of B only */
    struct pair {
        const char *kernel;
        const kstat *a, *b;
    } *rows = NULL;
    if (group(a, &ka, &na) || group(b, &kb, &nb) || !(rows = malloc((na + nb + 1) * sizeof *rows))) {
        kstats_free(ka, na);
        kstats_free(kb, nb);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < na; ++i)
        rows[n++] = (struct pair){ka[i].kernel, &ka[i], find(kb, nb, ka[i].kernel)};
    for (size_t i = 0; i < nb; ++i)
        if (!find(ka, na, kb[i].kernel))
            rows[n++] = (struct pair){kb[i].kernel, NULL, &kb[i]};
    if (fmt == AU_FMT_CSV) {
        fputs("kernel,launches_a,launches_b,time_a,time_b,time_unit,time_change_pct,jobs_a,jobs_b,"
              "a_passes_per_job_a,a_passes_per_job_b,util_pct_a,util_pct_b,util_change_pts,"
              "verdict_a,verdict_b\n",
              out);
    } else {
        fputs("A: ", out);
        au_fput_text(out, a->source, AU_TEXT_PLAIN);
        fputs("\nB: ", out);
        au_fput_text(out, b->source, AU_TEXT_PLAIN);
        fprintf(out, "\ntime: summed GPU time in ns, or summed active cycles per SM where a side has no "
                     "duration; U: active-time weighted over a kernel's launches; -: not on that side, or "
                     "no such figure\n\n");
        fprintf(out, "%-*s %10s %10s %-6s %8s %9s %9s %6s %6s %6s %6s %6s  %s\n", NAME_COLS, "kernel", "time A",
                "time B", "unit", "change", "jobs A", "jobs B", "a A", "a B", "U% A", "U% B", "dU", "verdict A -> B");
    }
    int cut = 0;
    for (size_t i = 0; i < n; ++i)
        row(out, fmt, rows[i].kernel, rows[i].a, rows[i].b, &cut);
    if (cut)
        fprintf(out, "\nkernel names cut above, in full:\n");
    for (size_t i = 0, k = 0; cut && i < n; ++i)
        if (au_text_width(rows[i].kernel) > NAME_COLS) {
            fprintf(out, "[%zu] ", ++k);
            au_fput_text(out, rows[i].kernel, AU_TEXT_PLAIN);
            fputc('\n', out);
        }
    free(rows);
    kstats_free(ka, na);
    kstats_free(kb, nb);
    return ferror(out) ? -1 : 0;
}
