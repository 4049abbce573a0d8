/*
 * report.c - one result model (au_report: launches with counters and model results), its
 * evaluation, kernel names for humans, and the choice of renderer: a human table
 * (render_table.c), CSV (render_csv.c) and JSON (render_json.c), which only print.
 */
#include "internal.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void au_report_init(au_report *r)
{
    memset(r, 0, sizeof *r);
    r->thr = AU_THRESHOLDS_DEFAULT;
    r->busy = AU_BUSY_SATURATED;
    au_strlcpy(r->family, "add", sizeof r->family);
}

void au_report_free(au_report *r)
{
    for (size_t i = 0; i < r->count; ++i) {
        free(r->launches[i].kernel);
        au_opsplit_free(r->launches[i].ops);
    }
    free(r->launches);
    memset(r, 0, sizeof *r);
}

au_launch *au_report_add(au_report *r)
{
    if (au_grow(&r->launches, &r->cap, r->count, sizeof *r->launches, 16) != 0) {
        au_set_error(AU_E_NOMEM, "out of memory");
        return NULL;
    }
    au_launch *l = &r->launches[r->count++];
    memset(l, 0, sizeof *l);
    l->pid = -1;
    l->duration_ns = -1;
    return l;
}

int au_report_eval(au_report *r, const au_table *t, const char *family, const au_thresholds *thr)
{
    if (!r || !t || !family)
        return au_set_error(AU_E_INVAL, "au_report_eval: invalid argument");
    r->table = t;
    au_strlcpy(r->family, family, sizeof r->family);
    if (thr)
        r->thr = *thr;
    const au_table_meta *m = au_table_get_meta(t);
    for (size_t i = 0; i < r->count; ++i) {
        au_launch *l = &r->launches[i];
        int sms = l->sm_count;
        unsigned extra = 0;
        if (sms <= 0) {
            sms = m->sm_count;
            extra |= AU_F_SM_FROM_TABLE;
        }
        int rc = au_model_eval(t, family, &l->ctr, sms, &r->thr, r->busy, &l->res);
        if (rc)
            return rc;
        l->res.flags |= extra;
        if (l->device[0] && strcmp(l->device, m->gpu_name) != 0)
            l->res.flags |= AU_F_TABLE_OTHER_GPU;
        if (l->cc_major > 0 && (l->cc_major != m->cc_major || l->cc_minor != m->cc_minor))
            l->res.flags |= AU_F_TABLE_OTHER_ARCH;
    }
    return AU_OK;
}

/* The short name inside kernel: without the return type "void " and the parameter list (the last
 * top-level '(' ... ')'); its length. */
static size_t short_span(const char *kernel, const char **start)
{
    const char *s = kernel ? kernel : "";
    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    size_t len = strlen(s), cut = len;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        if (s[i] == ')')
            ++depth;
        else if (s[i] == '(' && --depth == 0) {
            cut = i;
            break;
        }
    }
    if (cut == 0)
        cut = len;
    *start = s;
    return cut;
}

/* The short name as plain text, cut to width columns, padded to them when pad (a table cell). */
char *au_kernel_fit(const char *kernel, char *buf, size_t size, size_t width, int pad)
{
    const char *s;
    size_t n = short_span(kernel, &s);
    return au_text_fit_n(s, n, buf, size, width, pad);
}

char *au_kernel_short(const char *kernel, char *buf, size_t size, size_t width)
{
    return au_kernel_fit(kernel, buf, size, width, 0);
}

char *au_kernel_short_dup(const char *kernel)
{
    const char *s;
    size_t n = short_span(kernel, &s);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *au_dims_text(const unsigned d[3], int known, int cross, char *buf, size_t size)
{
    if (!known)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, cross ? "%ux%ux%u" : "(%u, %u, %u)", d[0], d[1], d[2]);
    return buf;
}

/* The verdicts of the ends of a launch's U range (AU_F_RANGE), which the table names where they
 * differ. */
void au_range_verdicts(const au_result *x, const au_thresholds *thr, au_verdict *lo, au_verdict *hi)
{
    *lo = au_verdict_of(x->util_lo, thr);
    *hi = au_verdict_of(x->util_hi, thr);
}
