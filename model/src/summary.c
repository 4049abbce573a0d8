/*
 * summary.c - the kernels of a report (atomutil-profile --summary and --compare): launches grouped
 * by short name, the whole name however long, in one pass with a hash of the names (a framework's
 * run has hundreds of thousands of launches of a few hundred kernels); per kernel the GPU time,
 * U weighted by active cycles with its range, the verdicts, and the families its jobs were priced as.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Severity of a verdict, for the worst one: a range that reaches atomic-bound (uncertain) is worse
 * than a significant U. */
static int severity(au_verdict v)
{
    switch (v) {
    case AU_VERDICT_BOUND: return 4;
    case AU_VERDICT_UNCERTAIN: return 3;
    case AU_VERDICT_SIGNIFICANT: return 2;
    case AU_VERDICT_NOT_LIMITING: return 1;
    default: return 0;
    }
}

static size_t hash_span(const char *s, size_t n)
{
    unsigned long long h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; ++i)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 32));
}

/* The evaluated launch l's jobs into k's classes: by opcode class where it was priced by its
 * opcodes, else all as the report's family (the DSMEM class, not part of the jobs, is left out as
 * in a launch's own classes). */
static void add_classes(au_kernel_stat *k, const au_launch *l, const char *family)
{
    au_class_share one = {.jobs = l->ctr.jobs, .busy = l->res.busy};
    const au_class_share *cls = &one;
    size_t n = 1;
    if (l->ops && (l->res.flags & AU_F_OPCODES))
        cls = l->ops->cls, n = l->ops->nclass;
    else
        au_strlcpy(one.family, family, sizeof one.family);
    for (size_t i = 0; i < n; ++i) {
        if (!(cls[i].jobs > 0) || strcmp(cls[i].family, "dsmem") == 0)
            continue;
        size_t c;
        for (c = 0; c < k->nclass && strcmp(k->cls[c].family, cls[i].family) != 0; ++c)
            ;
        if (c == k->nclass) {
            if (k->nclass == AU_MAX_CLASSES)
                continue;
            memset(&k->cls[c], 0, sizeof k->cls[c]);
            au_strlcpy(k->cls[c].family, cls[i].family, sizeof k->cls[c].family);
            k->nclass++;
        }
        k->cls[c].jobs += cls[i].jobs;
        k->cls[c].ninstr += cls[i].ninstr;
        k->cls[c].busy += cls[i].busy;
    }
}

/* Launch l's cures into its kernel k: a timed launch counts with each cure's time, or its own where
 * the cure does not apply. */
static void add_advice(au_kernel_stat *k, const au_launch *l)
{
    if (!(l->duration_ns >= 0))
        return;
    k->advised += l->adv && l->adv->best >= 0;
    for (int c = 0; c < AU_CURE_COUNT; ++c) {
        const au_whatif *w = l->adv ? &l->adv->w[c] : NULL;
        int on = w && w->applies && l->duration_ns > 0;
        k->cure_ns[c] += on ? w->time_ns : l->duration_ns;
        k->cure_lo_ns[c] += on ? w->time_lo_ns : l->duration_ns;
        k->cure_hi_ns[c] += on ? w->time_hi_ns : l->duration_ns;
        k->cure_busy[c] += on ? w->busy : l->res.busy;
    }
}

/* Launch l into its kernel k and the summary's totals. */
static void add_launch(au_summary *s, au_kernel_stat *k, const au_launch *l, const char *family)
{
    const au_result *x = &l->res;
    k->launches++;
    s->launches++;
    k->verdicts[x->verdict <= AU_VERDICT_UNCERTAIN ? x->verdict : AU_VERDICT_UNKNOWN]++;
    if (l->duration_ns >= 0) {
        k->timed++;
        k->time_ns += l->duration_ns;
        s->timed++;
        s->time_ns += l->duration_ns;
        if (x->verdict == AU_VERDICT_BOUND)
            s->time_bound_ns += l->duration_ns;
        else if (x->verdict == AU_VERDICT_SIGNIFICANT)
            s->time_significant_ns += l->duration_ns;
    }
    add_advice(k, l);
    if ((x->flags & AU_F_UNUSABLE) || x->verdict == AU_VERDICT_UNKNOWN)
        return;
    if (!k->evaluated++ || x->util < k->util_min)
        k->util_min = x->util;
    if (k->evaluated == 1 || x->util > k->util_max)
        k->util_max = x->util;
    k->jobs += l->ctr.jobs;
    k->cas_jobs += l->ctr.cas_jobs;
    if (l->ctr.have & AU_C_LOOP_ENTRIES) {
        k->loop_entries += l->ctr.loop_entries;
        k->entry_launches++;
        k->entry_load_cycles += l->adv ? l->adv->entry_load_cycles * l->ctr.loop_entries : 0;
        k->entry_loads_unpriced |= l->adv ? l->adv->entry_loads_unpriced : 0;
    }
    k->match_unpriced |= l->adv ? l->adv->match_unpriced : 0;
    if (l->ctr.have & AU_C_L2_HIT) {
        k->l2_hit_sectors += l->ctr.l2_hit_sectors;
        k->l2_jobs += l->ctr.jobs;
        k->l2_launches++;
    }
    k->wavefronts += l->ctr.wavefronts;
    k->busy += x->busy;
    k->active += x->active;
    add_classes(k, l, family);
}

/* A kernel's U, its verdicts and its classes in words, once its launches are in. */
static void finish_kernel(au_kernel_stat *k, const au_thresholds *thr)
{
    k->util = k->active > 0 ? k->busy / k->active : 0;
    k->verdict = k->evaluated ? au_verdict_of(k->util, thr) : AU_VERDICT_UNKNOWN;
    k->worst = k->common = AU_VERDICT_UNKNOWN;
    for (int v = 0; v <= AU_VERDICT_UNCERTAIN; ++v) {
        if (!k->verdicts[v])
            continue;
        if (severity((au_verdict)v) > severity(k->worst))
            k->worst = (au_verdict)v;
        if (k->verdicts[v] > k->verdicts[k->common] ||
            (k->verdicts[v] == k->verdicts[k->common] && severity((au_verdict)v) > severity(k->common)))
            k->common = (au_verdict)v;
    }
    k->best = k->advised ? au_best_cure(k->cure_ns, k->time_ns) : -1;
    k->save_ns = k->best >= 0 ? k->time_ns - k->cure_ns[k->best] : 0;
    double jobs = 0;
    for (size_t c = 0; c < k->nclass; ++c)
        jobs += k->cls[c].jobs;
    au_classes_sort(k->cls, k->nclass);
    au_classes_text(k->cls, k->nclass, jobs, k->classes, sizeof k->classes);
}

/* The kernel of launch i: found in the hash (slots hold kernel index + 1), or added.  NULL when
 * out of memory. */
static au_kernel_stat *kernel_of(au_summary *s, size_t *slots, size_t mask, const au_launch *l, size_t i)
{
    const char *name;
    size_t n = au_kernel_short_span(l->kernel, &name);
    size_t h = hash_span(name, n) & mask;
    while (slots[h]) {
        au_kernel_stat *k = &s->k[slots[h] - 1];
        if (strncmp(k->name, name, n) == 0 && k->name[n] == '\0')
            return k;
        h = (h + 1) & mask;
    }
    au_kernel_stat *k = &s->k[s->n];
    memset(k, 0, sizeof *k);
    if (!(k->name = malloc(n + 1)))
        return NULL;
    memcpy(k->name, name, n);
    k->name[n] = '\0';
    k->first = i;
    slots[h] = ++s->n;
    return k;
}

/* The kernels of r's launches of file (SIZE_MAX: all). */
static int make(const au_report *r, size_t file, au_summary *s)
{
    memset(s, 0, sizeof *s);
    size_t cap = 16;
    while (cap < 2 * r->count)
        cap *= 2;
    size_t *slots = calloc(cap, sizeof *slots);
    s->k = calloc(r->count ? r->count : 1, sizeof *s->k);
    s->of_launch = calloc(r->count ? r->count : 1, sizeof *s->of_launch);
    int rc = slots && s->k && s->of_launch ? AU_OK : AU_E_NOMEM;
    s->nall = r->count;
    for (size_t i = 0; i < r->count && rc == AU_OK; ++i) {
        if (file != SIZE_MAX && r->launches[i].file != file) {
            s->of_launch[i] = AU_NO_KERNEL;
            continue;
        }
        au_kernel_stat *k = kernel_of(s, slots, cap - 1, &r->launches[i], i);
        if (!k) {
            rc = AU_E_NOMEM;
            break;
        }
        s->of_launch[i] = (size_t)(k - s->k);
        add_launch(s, k, &r->launches[i], r->family);
    }
    free(slots);
    if (rc != AU_OK) {
        au_summary_free(s);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    for (size_t j = 0; j < s->n; ++j)
        finish_kernel(&s->k[j], &r->thr);
    return AU_OK;
}

int au_summary_make(const au_report *r, au_summary *s)
{
    return make(r, SIZE_MAX, s);
}

int au_summary_make_file(const au_report *r, size_t file, au_summary *s)
{
    return make(r, file, s);
}

static int by_time(const void *pa, const void *pb)
{
    const au_kernel_stat *a = pa, *b = pb;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

const au_kernel_stat *au_summary_find(const au_summary *s, const char *kernel)
{
    for (size_t i = 0; i < s->n; ++i)
        if (strcmp(s->k[i].name, kernel) == 0)
            return &s->k[i];
    return NULL;
}

int au_summary_sort_by_time(au_summary *s)
{
    if (s->n < 2)
        return AU_OK;
    size_t *to = malloc(s->n * sizeof *to);
    if (!to)
        return au_set_error(AU_E_NOMEM, "out of memory");
    qsort(s->k, s->n, sizeof *s->k, by_time);
    /* the launches' kernel indices follow: a kernel's first launch still holds its old index */
    for (size_t j = 0; j < s->n; ++j)
        to[s->of_launch[s->k[j].first]] = j;
    for (size_t i = 0; i < s->nall; ++i)
        if (s->of_launch[i] != AU_NO_KERNEL)
            s->of_launch[i] = to[s->of_launch[i]];
    free(to);
    return AU_OK;
}

void au_summary_free(au_summary *s)
{
    for (size_t j = 0; s->k && j < s->n; ++j)
        free(s->k[j].name);
    free(s->k);
    free(s->of_launch);
    memset(s, 0, sizeof *s);
}
