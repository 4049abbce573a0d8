/*
 * abi_report.c - libatomutil.so's evaluations (abi.h): one launch's counters, or a counters file or
 * export, read by atomutil's own readers (the counters become an export's rows), each launch
 * evaluated once (au_launch_eval) and written as atomutil-profile --json writes it, with the
 * reason of each launch that has no U beside it.
 */
#include "abi_internal.h"

#include "ncu_import.h"
#include "opcodes.h"
#include "run.h"

#include "atomutil/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How launches are priced (abi.h). */
typedef struct {
    const char *family;
    au_busy_mode busy;
    au_thresholds thr;
} pricing;

static int pricing_of(const char *family, const char *busy, double bound, double significant, pricing *p)
{
    p->family = family && *family ? family : "add";
    if (!busy || !*busy || strcmp(busy, "saturated") == 0)
        p->busy = AU_BUSY_SATURATED;
    else if (strcmp(busy, "queue") == 0)
        p->busy = AU_BUSY_QUEUE;
    else
        return au_set_error(AU_E_INVAL, "busy mode '%.40s' is neither saturated nor queue", busy);
    p->thr = AU_THRESHOLDS_DEFAULT;
    if (!(bound >= 0 && bound <= 10) || !(significant >= 0 && significant <= 10))
        return au_set_error(AU_E_INVAL, "thresholds must be fractions from 0 to 10, got %g and %g", bound, significant);
    if (bound > 0)
        p->thr.bound = bound;
    if (significant > 0)
        p->thr.significant = significant;
    else if (p->thr.significant > p->thr.bound) /* as atomutil-profile --bound alone */
        p->thr.significant = p->thr.bound;
    if (p->thr.significant > p->thr.bound)
        return au_set_error(AU_E_INVAL, "significant (%g) must not exceed bound (%g)", p->thr.significant,
                            p->thr.bound);
    return AU_OK;
}

/* AU_OK when table t has family, else its families named. */
static int check_family(const au_table *t, const char *family)
{
    if (au_table_has_family(t, family))
        return AU_OK;
    char names[1024] = "";
    size_t used = 0, n = au_table_family_count(t);
    for (size_t i = 0; i < n && used < sizeof names; ++i)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", au_table_family_name(t, i));
    return au_set_error(AU_E_NOTFOUND, "table %s has no family '%s' (its families: %s)", au_table_path(t), family,
                        names);
}

/* The evaluated report as *json: {"abi": N, "report": DOCUMENT, "why": [...]}. */
static int render(const au_report *rep, char **json, char **error)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return au_abi_fail(au_set_error(AU_E_NOMEM, "out of memory"), error);
    fprintf(f, "{\"abi\": %d, \"report\": ", AU_ABI_VERSION);
    int st = au_report_render(rep, AU_FMT_JSON, f);
    fputs(", \"why\": [", f);
    for (size_t i = 0; i < rep->count; ++i) {
        const au_result *r = &rep->launches[i].res;
        fputs(i ? ", " : "", f);
        au_fput_text(f, r->verdict == AU_VERDICT_UNKNOWN ? r->why : "", AU_TEXT_JSON);
    }
    fputs("]}\n", f);
    if (st != AU_OK) {
        fclose(f);
        free(buf);
        return au_abi_fail(st, error);
    }
    return au_abi_close_text(f, &buf, json, error);
}

/* The metric definition of name, NULL for a metric atomutil does not read. */
static const au_metric_def *def_of(const char *name)
{
    size_t n;
    const au_metric_def *d = au_metric_defs(&n);
    for (size_t i = 0; name && i < n; ++i)
        if (strcmp(d[i].name, name) == 0)
            return &d[i];
    return NULL;
}

/* One row's fields before the metric's: launch 0, its kernel and compute capability. */
static void row_head(FILE *f, const char *kernel, int cc_major, int cc_minor)
{
    fputs("\"0\",", f);
    au_fput_text(f, kernel ? kernel : "", AU_TEXT_CSV);
    if (cc_major > 0)
        fprintf(f, ",\"%d.%d\"", cc_major, cc_minor);
    fputc(',', f);
}

/* The counters as an export of one launch (the reader's input), in *buf.  Values must be finite
 * and not negative. */
static int counters_text(const char *const *names, const double *values, size_t n, const char *device, int cc_major,
                         int cc_minor, const char *kernel, char **buf)
{
    for (size_t i = 0; i < n; ++i)
        if (def_of(names[i]) && !(isfinite(values[i]) && values[i] >= 0))
            return au_set_error(AU_E_INVAL, "%s: %g is not a finite number of at least 0", names[i], values[i]);
    size_t len = 0;
    FILE *f = open_memstream(buf, &len);
    if (!f)
        return au_set_error(AU_E_NOMEM, "out of memory");
    fprintf(f, "\"ID\",\"Kernel Name\",%s\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
            cc_major > 0 ? "\"CC\"," : "");
    if (device && *device) {
        row_head(f, kernel, cc_major, cc_minor);
        fprintf(f, "\"%s\",\"\",", AU_METRIC_DEVICE_NAME);
        au_fput_text(f, device, AU_TEXT_CSV);
        fputc('\n', f);
    }
    for (size_t i = 0; i < n; ++i) {
        const au_metric_def *d = def_of(names[i]);
        if (!d || strcmp(d->name, AU_METRIC_DEVICE_NAME) == 0)
            continue; /* not read, or not a number */
        const char *unit = d->counter ? d->unit : strcmp(d->name, AU_METRIC_DURATION) == 0 ? "ns" : "";
        row_head(f, kernel, cc_major, cc_minor);
        fprintf(f, "\"%s\",\"%s\",\"%.17g\"\n", d->name, unit, values[i]);
    }
    if (fclose(f) != 0 || !*buf) {
        free(*buf);
        *buf = NULL;
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    return AU_OK;
}

/* The kernel's instructions as au_launch_eval takes them: opcodes[i] with executed[i] runs
 * (executed NULL: no counts); *instr malloc'ed (NULL with ncode 0). */
static int code_of(const char *const *opcodes, const double *executed, size_t ncode, au_instr **instr,
                   au_launch_code *lc)
{
    *instr = NULL;
    memset(lc, 0, sizeof *lc);
    if (!ncode)
        return AU_OK;
    if (!opcodes)
        return au_set_error(AU_E_INVAL, "au_abi_evaluate_code: no opcodes");
    if (!(*instr = calloc(ncode, sizeof **instr)))
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t i = 0; i < ncode; ++i) {
        if (!opcodes[i] || (executed && !(executed[i] >= 0)))
            return au_set_error(AU_E_INVAL, "au_abi_evaluate_code: instruction %zu has no opcode or a negative count",
                                i);
        au_strlcpy((*instr)[i].opcode, opcodes[i], sizeof(*instr)[i].opcode);
        (*instr)[i].pc = (unsigned)i;
        (*instr)[i].jobs = executed ? executed[i] : 0;
    }
    *lc = (au_launch_code){*instr, ncode, NULL, executed != NULL};
    return AU_OK;
}

static int evaluate(const au_abi_table *t, const char *const *names, const double *values, size_t n, const char *device,
                    int cc_major, int cc_minor, const char *kernel, const char *const *opcodes, const double *executed,
                    size_t ncode, const char *family, const char *busy, double bound, double significant, char **json,
                    char **error)
{
    if (error)
        *error = NULL;
    if (!t || !json || (n && (!names || !values)))
        return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_evaluate: invalid argument"), error);
    *json = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!names[i])
            return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_evaluate: metric %zu has no name", i), error);
    pricing p;
    char *text = NULL;
    int st = pricing_of(family, busy, bound, significant, &p);
    if (st == AU_OK)
        st = check_family(t->t, p.family);
    if (st == AU_OK)
        st = counters_text(names, values, n, device, cc_major, cc_minor, kernel, &text);
    au_report rep;
    au_report_init(&rep);
    if (st == AU_OK)
        st = au_ncu_import_buffer("counters", text, strlen(text), &rep);
    free(text);
    au_instr *instr = NULL;
    au_launch_code lc;
    if (st == AU_OK)
        st = code_of(opcodes, executed, ncode, &instr, &lc);
    if (st == AU_OK && ncode && rep.count)
        rep.launches[0].code = &lc; /* read once at the evaluation, which clears it */
    if (st == AU_OK) {
        rep.busy = p.busy;
        st = au_report_eval(&rep, t->t, p.family, &p.thr);
    }
    st = st == AU_OK ? render(&rep, json, error) : au_abi_fail(st, error);
    au_report_free(&rep);
    free(instr);
    return st;
}

/* The table of the GPU that the first launch naming its GPU ran on, as atomutil-profile picks it. */
static int pick_table(const char *path, const au_report *rep, au_abi_table **out)
{
    const au_launch *ref = &rep->launches[0];
    for (size_t i = 0; i < rep->count; ++i)
        if (rep->launches[i].device[0] && rep->launches[i].cc_major) {
            ref = &rep->launches[i];
            break;
        }
    if (!ref->cc_major)
        return au_set_error(AU_E_NOTFOUND, "%s has no CC column to pick a table by; pass a table", path);
    return au_abi_table_find(ref->device, ref->cc_major, ref->cc_minor, out, NULL);
}

/* Attaches the kernels' code of the file at path to its launches, as atomutil-profile's default
 * does (opcodes < 0: where the file has code; > 0: code required).  The code lives in *ops. */
static int attach_code(const char *path, const au_cf_run *run, au_report *rep, const au_table *t, au_busy_mode busy,
                       int opcodes, au_opcodes **ops, au_opcodes_ncu **nops)
{
    if (run->ncu_opcodes) { /* a report made with ncu --set full, or its raw page: executions per opcode */
        size_t attached;
        /* no note: the library prints nothing, a report's loops without entries stay unpriced */
        int st = au_opcodes_ncu_attach(nops, rep, path, run->ncu_report, &attached, NULL, 0);
        if (st == AU_OK && !attached && opcodes > 0)
            st = au_set_error(AU_E_NOTFOUND, "%s: no launch with executions per opcode", path);
        return st == AU_OK || opcodes > 0 ? st : AU_OK; /* by default, priced as the family without them */
    }
    char dir[PATH_MAX + 16];
    size_t bl = strlen(path), sl = strlen(".counters.csv");
    if (bl > sl && strcmp(path + bl - sl, ".counters.csv") == 0)
        bl -= sl; /* BASE.cubins/ of BASE.counters.csv, as a live run with -o BASE leaves them */
    snprintf(dir, sizeof dir, "%.*s.cubins", (int)bl, path);
    if (!au_opcodes_have_code(dir))
        return opcodes > 0 ? au_set_error(AU_E_NOTFOUND,
                                          "%s: no kernel code (%s/ is missing; a live run of "
                                          "atomutil-profile -o BASE keeps it beside BASE.counters.csv)",
                                          path, dir)
                           : AU_OK;
    au_opcodes_stats stats;
    int st = au_opcodes_attach(ops, rep, t, busy, path, run, dir, AU_OPCODES_QUIET, &stats);
    return st == AU_E_NOTFOUND && opcodes < 0 ? AU_OK : st; /* names no code: priced as the family */
}

static int read_file(const char *path, const au_abi_table *t, const char *family, const char *busy, double bound,
                     double significant, int opcodes, char **json, char **error)
{
    if (error)
        *error = NULL;
    if (!path || !*path || !json)
        return au_abi_fail(au_set_error(AU_E_INVAL, "au_abi_read: no path"), error);
    *json = NULL;
    pricing p;
    int st = pricing_of(family, busy, bound, significant, &p);
    if (family && *family && opcodes < 0)
        opcodes = 0; /* an explicit family prices every launch, as atomutil-profile --family */
    au_report rep;
    au_report_init(&rep);
    au_cf_run run;
    memset(&run, 0, sizeof run);
    au_abi_table *picked = NULL;
    au_opcodes *ops = NULL;
    au_opcodes_ncu *nops = NULL;
    if (st == AU_OK && (st = au_cf_run_read(path, 0, &rep, &run)) != AU_OK)
        st = au_set_error(st, "%s", run.error);
    if (st == AU_OK && !t && rep.count)
        st = pick_table(path, &rep, &picked);
    const au_table *table = t ? t->t : picked ? picked->t : NULL;
    if (st == AU_OK && table)
        st = check_family(table, p.family);
    if (st == AU_OK && table && opcodes)
        st = attach_code(path, &run, &rep, table, p.busy, opcodes, &ops, &nops);
    if (st == AU_OK && table) {
        rep.busy = p.busy;
        st = au_report_eval(&rep, table, p.family, &p.thr);
    }
    st = st == AU_OK ? render(&rep, json, error) : au_abi_fail(st, error);
    au_opcodes_free(ops);
    au_opcodes_ncu_free(nops);
    au_cf_run_free(&run);
    au_report_free(&rep);
    au_abi_table_free(picked);
    return st;
}

AU_ABI_EXPORT int au_abi_evaluate(const au_abi_table *t, const char *const *names, const double *values, size_t n,
                                  const char *device, int cc_major, int cc_minor, const char *kernel,
                                  const char *family, const char *busy, double bound, double significant, char **json,
                                  char **error)
{
    au_abi_locale lc = au_abi_locale_begin();
    int st = evaluate(t, names, values, n, device, cc_major, cc_minor, kernel, NULL, NULL, 0, family, busy, bound,
                      significant, json, error);
    au_abi_locale_end(lc);
    return st;
}

AU_ABI_EXPORT int au_abi_evaluate_code(const au_abi_table *t, const char *const *names, const double *values, size_t n,
                                       const char *device, int cc_major, int cc_minor, const char *kernel,
                                       const char *const *opcodes, const double *executed, size_t ncode,
                                       const char *family, const char *busy, double bound, double significant,
                                       char **json, char **error)
{
    au_abi_locale lc = au_abi_locale_begin();
    int st = evaluate(t, names, values, n, device, cc_major, cc_minor, kernel, opcodes, executed, ncode, family, busy,
                      bound, significant, json, error);
    au_abi_locale_end(lc);
    return st;
}

AU_ABI_EXPORT int au_abi_read(const char *path, const au_abi_table *t, const char *family, const char *busy,
                              double bound, double significant, int opcodes, char **json, char **error)
{
    au_abi_locale lc = au_abi_locale_begin();
    int st = read_file(path, t, family, busy, bound, significant, opcodes, json, error);
    au_abi_locale_end(lc);
    return st;
}
