/*
 * report.c - one result model (au_report: launches with counters and model results), its
 * evaluation (each launch once, by its kernel's code where attached), kernel names for humans, and
 * the choice of renderer: a human table
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
    r->name_width = AU_NAME_WIDTH_DEFAULT;
    au_strlcpy(r->family, "add", sizeof r->family);
}

void au_report_free(au_report *r)
{
    for (size_t i = 0; i < r->count; ++i) {
        free(r->launches[i].kernel);
        au_opsplit_free(r->launches[i].ops);
        free(r->launches[i].adv);
    }
    for (size_t f = 0; f < r->nfiles; ++f)
        free(r->files[f]);
    free(r->files);
    free(r->launches);
    memset(r, 0, sizeof *r);
}

int au_report_set_files(au_report *r, const char *const *names, size_t n)
{
    char **v = calloc(n ? n : 1, sizeof *v);
    for (size_t f = 0; v && f < n; ++f)
        if (!(v[f] = strdup(names[f]))) {
            while (f-- > 0)
                free(v[f]);
            free(v);
            v = NULL;
        }
    if (!v)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t f = 0; f < r->nfiles; ++f)
        free(r->files[f]);
    free(r->files);
    r->files = v;
    r->nfiles = n;
    return AU_OK;
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

/* The SM count a launch is priced with: its own, else the table's (*flags: AU_F_SM_FROM_TABLE). */
static int launch_sms(const au_launch *l, const au_table *t, unsigned *flags)
{
    *flags = 0;
    if (l->sm_count > 0)
        return l->sm_count;
    *flags = AU_F_SM_FROM_TABLE;
    return au_table_get_meta(t)->sm_count;
}

int au_launch_wants_code(const au_launch *l)
{
    return !(l->res.flags & AU_F_UNUSABLE) &&
           (l->ctr.jobs > 0 || (l->res.flags & AU_F_UNPRICED_WAVEFRONTS) || au_generic_counted(&l->ctr));
}

int au_launch_may_want_code(const au_launch *l, const au_table *t, au_busy_mode busy)
{
    unsigned extra;
    int sms = launch_sms(l, t, &extra);
    if (sms <= 0 || au_counters_unusable(t, &l->ctr, sms, busy))
        return 0;
    /* au_launch_wants_code's unpriced wavefronts are wavefronts without jobs */
    return l->ctr.jobs > 0 || ((l->ctr.have & AU_C_WAVEFRONTS) && l->ctr.wavefronts > 0);
}

static int launch_eval(au_launch *l, const au_table *t, const char *family, const au_thresholds *thr, au_busy_mode busy)
{
    const au_launch_code *code = l->code;
    l->code = NULL;
    if (code && !code->instr && code->n)
        return au_set_error(AU_E_INVAL, "au_launch_eval: invalid argument");
    if (l->evals++)
        return au_set_error(AU_E_INVAL, "launch %lld evaluated twice", l->id);
    const au_table_meta *m = au_table_get_meta(t);
    unsigned extra;
    int rc = au_model_eval(t, family, &l->ctr, launch_sms(l, t, &extra), thr, busy, &l->res);
    if (rc)
        return rc;
    l->res.flags |= extra;
    if ((l->ctr.have & AU_C_PASSES) && l->ctr.passes > 1)
        l->res.flags |= AU_F_REPLAYED;
    if (l->device[0] && strcmp(l->device, m->gpu_name) != 0)
        l->res.flags |= AU_F_TABLE_OTHER_GPU;
    if (l->cc_major > 0 && (l->cc_major != m->cc_major || l->cc_minor != m->cc_minor))
        l->res.flags |= AU_F_TABLE_OTHER_ARCH;
    if (!code || !au_launch_wants_code(l))
        return AU_OK;
    if ((rc = au_opsplit_price(l, t, code->instr, code->n, code->counted, thr, busy)) != AU_OK)
        return rc;
    if (code->nodes && l->ops && !(l->ops->nodes = strdup(code->nodes)))
        return au_set_error(AU_E_NOMEM, "out of memory");
    return AU_OK;
}

int au_launch_eval(au_launch *l, const au_table *t, const char *family, const au_thresholds *thr, au_busy_mode busy)
{
    if (!l || !t || !family || !thr)
        return au_set_error(AU_E_INVAL, "au_launch_eval: invalid argument");
    int rc = launch_eval(l, t, family, thr, busy);
    return rc ? rc : au_launch_advise(l, t, family, busy);
}

int au_report_eval(au_report *r, const au_table *t, const char *family, const au_thresholds *thr)
{
    if (!r || !t || !family)
        return au_set_error(AU_E_INVAL, "au_report_eval: invalid argument");
    r->table = t;
    au_strlcpy(r->family, family, sizeof r->family);
    if (thr)
        r->thr = *thr;
    for (size_t i = 0; i < r->count; ++i) {
        int rc = au_launch_eval(&r->launches[i], t, family, &r->thr, r->busy);
        if (rc)
            return rc;
    }
    return AU_OK;
}

char *au_dims_text(const unsigned d[3], int known, int cross, char *buf, size_t size)
{
    if (!known)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, cross ? "%ux%ux%u" : "(%u, %u, %u)", d[0], d[1], d[2]);
    return buf;
}

char *au_duration_text(double ns, char *buf, size_t size)
{
    static const struct {
        double div;
        const char *unit;
    } u[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
    if (!(ns >= 0) || !isfinite(ns)) {
        snprintf(buf, size, "-");
        return buf;
    }
    size_t i = 0;
    /* the unit whose figure stays below 1000 once rounded to its decimals (999.996 us is 1.00 ms) */
    while (i < 3 && ns / u[i].div >= (i ? 999.995 : 999.5))
        ++i;
    if (i == 0)
        snprintf(buf, size, "%.0f ns", ns);
    else if (ns / u[i].div < 1e5)
        snprintf(buf, size, "%.2f %s", ns / u[i].div, u[i].unit);
    else
        snprintf(buf, size, "%.2e s", ns / u[i].div);
    return buf;
}

/* The verdicts of the ends of a launch's U range (AU_F_RANGE), which the table names where they
 * differ. */
void au_range_verdicts(const au_result *x, const au_thresholds *thr, au_verdict *lo, au_verdict *hi)
{
    *lo = au_verdict_of(x->util_lo, thr);
    *hi = au_verdict_of(x->util_hi, thr);
}
