/*
 * compare.c - kernel-by-kernel comparison of two evaluated reports.  Launches are grouped by
 * kernel name without its parameter list (ncu and the C++ runtime spell parameter types
 * differently: "const uchar4 *" vs "uchar4 const*"); per kernel: launches, summed GPU time (or active cycles when the source has no
 * duration), summed jobs, a = summed wavefronts / (summed jobs + CAS jobs), U = summed busy / summed active
 * cycles (active-time weighted), and the verdict of that U.
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char kernel[256];
    int launches, unknown;
    double time_ns, jobs, cas, wave, busy, active;
    au_verdict verdict;
} kstat;

static int group(const au_report *r, kstat **out, size_t *n)
{
    kstat *v = calloc(r->count ? r->count : 1, sizeof *v);
    if (!v)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        char name[256];
        au_kernel_short(l->kernel, name, sizeof name, sizeof name - 1);
        size_t j;
        for (j = 0; j < k; ++j)
            if (strcmp(v[j].kernel, name) == 0)
                break;
        if (j == k)
            memcpy(v[k++].kernel, name, sizeof name);
        kstat *s = &v[j];
        s->launches++;
        if (l->res.flags & AU_F_UNUSABLE) {
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

static const kstat *find(const kstat *v, size_t n, const char *kernel)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(v[i].kernel, kernel) == 0)
            return &v[i];
    return NULL;
}

static double pct_change(double a, double b)
{
    return a > 0 ? (b - a) / a * 100 : NAN;
}

static void row(FILE *out, au_format fmt, const char *kernel, const kstat *a, const kstat *b)
{
    char kn[40];
    au_kernel_short(kernel, kn, sizeof kn, 32);
    /* GPU time where both sides have it, else active cycles per SM on both sides: one unit */
    int ns = (!a || a->time_ns > 0) && (!b || b->time_ns > 0);
    double ta = a ? (ns ? a->time_ns : a->active) : NAN;
    double tb = b ? (ns ? b->time_ns : b->active) : NAN;
    const char *unit = ns ? "ns" : "cycles";
    double ua = a && a->active > 0 ? a->busy / a->active * 100 : (a ? 0 : NAN);
    double ub = b && b->active > 0 ? b->busy / b->active * 100 : (b ? 0 : NAN);
    /* passes per job, as in the model: a CAS-class pass counts two wavefronts */
    double aa = a && a->jobs > 0 ? a->wave / (a->jobs + a->cas) : NAN;
    double ab = b && b->jobs > 0 ? b->wave / (b->jobs + b->cas) : NAN;
    const char *va = a ? au_verdict_name(a->verdict) : "absent", *vb = b ? au_verdict_name(b->verdict) : "absent";
    if (fmt == AU_FMT_CSV) {
        fputc('"', out);
        for (const char *p = kernel; *p; ++p) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fprintf(out, "\",%d,%d,%.0f,%.0f,%s,%.2f,%.0f,%.0f,%.4f,%.4f,%.3f,%.3f,%.3f,%s,%s\n",
                a ? a->launches : 0, b ? b->launches : 0, ta, tb, unit, pct_change(ta, tb),
                a ? a->jobs : NAN, b ? b->jobs : NAN, aa, ab, ua, ub, ub - ua, va, vb);
        return;
    }
    fprintf(out, "%-32s %10.0f %10.0f %-6s %+7.1f%% %9.0f %9.0f %6.2f %6.2f %6.1f %6.1f %+6.1f  %s -> %s\n",
            kn, ta, tb, unit, pct_change(ta, tb), a ? a->jobs : NAN, b ? b->jobs : NAN, aa, ab, ua, ub,
            ub - ua, va, vb);
}

int au_compare_render(const au_report *a, const au_report *b, au_format fmt, FILE *out)
{
    kstat *ka = NULL, *kb = NULL;
    size_t na = 0, nb = 0;
    if (group(a, &ka, &na) || group(b, &kb, &nb)) {
        free(ka);
        free(kb);
        return -1;
    }
    if (fmt == AU_FMT_CSV) {
        fputs("kernel,launches_a,launches_b,time_a,time_b,time_unit,time_change_pct,jobs_a,jobs_b,"
              "a_passes_per_job_a,a_passes_per_job_b,util_pct_a,util_pct_b,util_change_pts,"
              "verdict_a,verdict_b\n",
              out);
    } else {
        fprintf(out, "A: %s\nB: %s\ntime: summed GPU time in ns, or summed active cycles per SM where a "
                     "side has no duration; U: active-time weighted over a kernel's launches\n\n",
                a->source, b->source);
        fprintf(out, "%-32s %10s %10s %-6s %8s %9s %9s %6s %6s %6s %6s %6s  %s\n", "kernel", "time A",
                "time B", "unit", "change", "jobs A", "jobs B", "a A", "a B", "U% A", "U% B", "dU",
                "verdict A -> B");
    }
    for (size_t i = 0; i < na; ++i)
        row(out, fmt, ka[i].kernel, &ka[i], find(kb, nb, ka[i].kernel));
    for (size_t i = 0; i < nb; ++i)
        if (!find(ka, na, kb[i].kernel))
            row(out, fmt, kb[i].kernel, NULL, &kb[i]);
    free(ka);
    free(kb);
    return ferror(out) ? -1 : 0;
}
