/*
 * report.c - one result model (au_report: launches with counters and model results), three
 * renderers: a human table, CSV (one row per launch, units in column names) and JSON.
 */
#include "internal.h"

#include <math.h>
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
static char *kernel_fit(const char *kernel, char *buf, size_t size, size_t width, int pad)
{
    const char *s;
    size_t n = short_span(kernel, &s);
    return au_text_fit_n(s, n, buf, size, width, pad);
}

char *au_kernel_short(const char *kernel, char *buf, size_t size, size_t width)
{
    return kernel_fit(kernel, buf, size, width, 0);
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

/* ------------------------------------------------------------ human table */

static const char *human_num(double v, char *buf, size_t size)
{
    if (v >= 1e12) /* at most 8 characters up to DBL_MAX: the column stays in place */
        snprintf(buf, size, "%.1e", v);
    else if (v >= 1e9)
        snprintf(buf, size, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, size, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, size, "%.1fk", v / 1e3);
    else
        snprintf(buf, size, "%.0f", v);
    return buf;
}

/* v with prec decimals in at most width characters: fewer decimals where it is too wide, then the
 * exponent form (1e+15), so that a huge figure never shifts the table's columns. */
static const char *fit_num(double v, int prec, int width, char *buf, size_t size)
{
    for (int p = prec; p >= 0; --p)
        if (snprintf(buf, size, "%.*f", p, v) <= width)
            return buf;
    for (int p = 2; p > 0; --p)
        if (snprintf(buf, size, "%.*e", p, v) <= width)
            return buf;
    snprintf(buf, size, "%.0e", v);
    return buf;
}

/* Opcode section of the human report: once per kernel, its classes, U by classes and by the
 * single family, and its shared-atomic instructions grouped by opcode and source line. */
static void render_opcodes_human(const au_report *r, FILE *out)
{
    int any = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_opsplit *o = l->ops;
        if (!o)
            continue;
        int first = 1;
        for (size_t j = 0; j < i && first; ++j)
            first = !(r->launches[j].ops && r->launches[j].kernel && l->kernel &&
                      strcmp(r->launches[j].kernel, l->kernel) == 0);
        if (!first)
            continue;
        if (!any)
            fprintf(out, "\nOpcode classes (shared atomics of each kernel's code; jobs split by the CAS counter; "
                         "first launch of each kernel shown):\n");
        any = 1;
        char kn[192], fl[256];
        kernel_fit(l->kernel, kn, sizeof kn, 40, 1);
        au_flags_string(o->flags, fl, sizeof fl);
        /* no class: no jobs to price, or jobs but no ATOMS of the kernel in its listing (priced by family) */
        char none[96] = "no shared-atomic jobs";
        if (l->res.jobs > 0)
            snprintf(none, sizeof none, "no ATOMS in its listing: priced as '%s'", r->family);
        fprintf(out, "%4lld  %s %s\n", l->id, kn, o->classes[0] ? o->classes : none);
        if (l->res.flags & AU_F_OPCODES)
            fprintf(out, "      U %.1f %% by opcode classes, %.1f %% priced as '%s'%s%s\n", l->res.util * 100,
                    o->by_family.util * 100, r->family, fl[0] ? "  " : "", fl);
        else if (fl[0])
            fprintf(out, "      %s\n", fl);
        /* instructions: count per (opcode, source) */
        for (size_t k = 0; k < o->ninstr; ++k) {
            const au_instr *x = &o->instr[k];
            int seen = 0;
            for (size_t m = 0; m < k && !seen; ++m)
                seen = strcmp(o->instr[m].opcode, x->opcode) == 0 && strcmp(o->instr[m].source, x->source) == 0;
            if (seen)
                continue;
            size_t cnt = 0;
            for (size_t m = k; m < o->ninstr; ++m)
                cnt += strcmp(o->instr[m].opcode, x->opcode) == 0 && strcmp(o->instr[m].source, x->source) == 0;
            char src[sizeof x->source * 3];
            fprintf(out, "        %3zu x %-22s %-11s first at pc 0x%04x  %s\n", cnt, x->opcode, x->family, x->pc,
                    au_text_fit(x->source, src, sizeof src, 0, 0));
        }
        if (o->ninstr == 0)
            fprintf(out, "        no ATOMS instruction in the kernel's code\n");
    }
}

/* A program that started CUDA processes of its own (multiprocessing, one process per GPU): one
 * line per process, since launch ids count per process. */
static void render_processes(const au_report *r, FILE *out)
{
    size_t nproc = 0;
    for (size_t i = 0; i < r->count; ++i) {
        int first = 1;
        for (size_t k = 0; k < i && first; ++k)
            first = r->launches[k].pid != r->launches[i].pid;
        nproc += first;
    }
    if (nproc < 2)
        return;
    fprintf(out, "\n%zu processes (launch ids count per process):\n", nproc);
    for (size_t i = 0; i < r->count; ++i) {
        int first = 1;
        for (size_t k = 0; k < i && first; ++k)
            first = r->launches[k].pid != r->launches[i].pid;
        if (!first)
            continue;
        size_t n = 0;
        const au_launch *top = NULL;
        char devs[256] = "";
        for (size_t k = i; k < r->count; ++k) {
            const au_launch *l = &r->launches[k];
            if (l->pid != r->launches[i].pid)
                continue;
            ++n;
            if (!(l->res.flags & AU_F_UNUSABLE) && (!top || l->res.util > top->res.util))
                top = l;
            if (l->device[0] && !strstr(devs, l->device) && strlen(devs) + strlen(l->device) + 3 < sizeof devs) {
                if (devs[0])
                    strcat(devs, ", ");
                strcat(devs, l->device);
            }
        }
        char kn[192] = "-", dv[sizeof devs * 3];
        if (top)
            au_kernel_short(top->kernel, kn, sizeof kn, 40);
        fprintf(out, "  pid %lld: %zu launches on %s; largest U %.1f %% (launch %lld, %s)\n", r->launches[i].pid, n,
                devs[0] ? au_text_fit(devs, dv, sizeof dv, 0, 0) : "an unknown device", top ? top->res.util * 100 : 0.0,
                top ? top->id : -1LL, kn);
    }
}

static void render_table(const au_report *r, FILE *out)
{
    const au_table_meta *m = r->table ? au_table_get_meta(r->table) : NULL;
    fprintf(out, "atomutil %s: shared-atomic unit utilization per kernel launch\n", AU_VERSION_STRING);
    fputs("source: ", out);
    au_fput_text(out, r->source, AU_TEXT_PLAIN);
    fputc('\n', out);
    size_t by_opcodes = 0;
    for (size_t i = 0; i < r->count; ++i)
        by_opcodes += (r->launches[i].res.flags & AU_F_OPCODES) != 0;
    if (m) {
        char gpu[sizeof m->gpu_name * 3];
        fputs("table:  ", out);
        au_fput_text(out, au_table_path(r->table)[0] ? au_table_path(r->table) : "<memory>", AU_TEXT_PLAIN);
        fprintf(out, " (%s, cc %d.%d, %s, %s%s)\n", au_text_fit(m->gpu_name, gpu, sizeof gpu, 0, 0),
                m->cc_major, m->cc_minor, m->method, m->status,
                strcmp(m->status, "provisional") == 0 ? ": NOT a full calibration" : "");
    }
    if (by_opcodes == r->count)
        fprintf(out, "jobs:   priced by the opcodes of each kernel's code (flag opcodes)\n");
    else if (by_opcodes)
        fprintf(out, "jobs:   priced by the opcodes of each kernel's code (flag opcodes), the other launches' "
                     "non-CAS jobs as '%s'\n", r->family);
    else
        fprintf(out, "jobs:   non-CAS jobs priced as '%s'\n", r->family);
    fprintf(out, "busy:   %s\n", r->busy == AU_BUSY_QUEUE
                                     ? "jobs priced at S(N) of the estimated queue length N (--busy queue)"
                                     : "jobs priced at the saturated service time S(n_max) (--busy saturated)");
    fprintf(out, "verdict: atomic-bound U >= %.0f %%, significant U >= %.0f %%\n\n", r->thr.bound * 100,
            r->thr.significant * 100);
    fprintf(out, "%4s  %-32s %-14s %-12s %8s %6s %6s %6s %7s %8s %8s %6s %6s  %-12s %s\n", "id", "kernel",
            "grid", "block", "J/SM", "a", "N", "c", "S", "B", "T", "U%", "Umax%", "verdict", "flags");
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        char kn[160], g[96], b[96], j[16], bb[16], tt[16], fl[256];
        kernel_fit(l->kernel, kn, sizeof kn, 32, 1);
        au_flags_string(x->flags, fl, sizeof fl);
        /* "(528, 1, 1)" -> "528x1x1" */
        const char *src[2] = {l->grid, l->block};
        char *dst[2] = {g, b};
        for (int k = 0; k < 2; ++k) {
            char raw[32];
            size_t o = 0;
            for (const char *p = src[k]; *p && o + 1 < sizeof raw; ++p) {
                if (*p == '(' || *p == ')' || *p == ' ')
                    continue;
                raw[o++] = *p == ',' ? 'x' : *p;
            }
            raw[o] = '\0';
            au_text_fit(raw, dst[k], sizeof g, 0, 0);
        }
        if (x->flags & AU_F_UNUSABLE) {
            int names = (x->flags & AU_F_MISSING) && l->missing_names[0];
            fprintf(out, "%4lld  %s %-14s %-12s %8s %6s %6s %6s %7s %8s %8s %6s %6s  %-12s %s%s\n",
                    l->id, kn, g, b, "-", "-", "-", "-", "-", "-", "-", "-", "-", au_verdict_name(x->verdict),
                    names ? "missing: " : "", names ? l->missing_names : fl);
            continue;
        }
        char um[16] = "-", fa[16], fn[16], fc[16], fs[16], fu[16];
        if (x->util_busiest > 0)
            fit_num(x->util_busiest * 100, 1, 6, um, sizeof um);
        fprintf(out, "%4lld  %s %-14s %-12s %8s %6s %6s %6s %7s %8s %8s %6s %6s  %-12s %s\n",
                l->id, kn, g, b, human_num(x->jobs, j, sizeof j), fit_num(x->a, 2, 6, fa, sizeof fa),
                fit_num(x->queue_len, 1, 6, fn, sizeof fn), fit_num(x->cas_queued, 2, 6, fc, sizeof fc),
                fit_num(x->service, 2, 7, fs, sizeof fs), human_num(x->busy, bb, sizeof bb),
                human_num(x->active, tt, sizeof tt), fit_num(x->util * 100, 1, 6, fu, sizeof fu),
                um, au_verdict_name(x->verdict), fl);
    }
    fprintf(out, "\nJ/SM: shared-atomic warp-instructions per SM; a: serialized passes per job; N: queue length; "
                 "c: CAS jobs among N;\nS: service cycles per job; B = J*S busy cycles; T: active cycles "
                 "per SM; U = B/T (the mean SM).\nUmax: the most utilized SM's U, at least (the larger of U "
                 "and B times the busiest SM's share of atomic wavefronts over the longest SM active "
                 "time).\n");
    render_processes(r, out);
    /* U ranges: CAS loops whose loads share the load counters with other shared-memory traffic */
    int ranges = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_result *x = &r->launches[i].res;
        if (!(x->flags & AU_F_RANGE))
            continue;
        if (!ranges++)
            fprintf(out, "\nUncertain U (flag loop_loads_estimated: the loads of CAS-loop attempts share the "
                         "load counters with other\nshared loads and stores; flag dsmem_local_estimated: "
                         "launches with clusters are measured with counters\nthat do not count the passes of "
                         "local shared atomics; flag dsmem_row_range: remote atomics with lanes on one word\n"
                         "cost up to twice as much when other warps' words share its 128-byte row, which no counter\n"
                         "shows; flag dsmem_mixed: atomics share the DSMEM path with loads and stores, their share\n"
                         "of its cycles is estimated from their sectors; flag generic_space_unknown: a launch without\n"
                         "clusters measured with the cluster set (its kernel ran no atomics before) made generic\n"
                         "atomics, to global memory or to its own shared memory; U is the estimate, the range bounds it):\n");
        fprintf(out, "%4lld  U %.1f %%, between %.1f and %.1f %%", r->launches[i].id, x->util * 100,
                x->util_lo * 100, x->util_hi * 100);
        if (x->verdict == AU_VERDICT_UNCERTAIN) /* the range spans two verdicts: name them */
            fprintf(out, ": verdict uncertain, %s to %s", au_verdict_name(au_verdict_of(x->util_lo, &r->thr)),
                    au_verdict_name(au_verdict_of(x->util_hi, &r->thr)));
        fputc('\n', out);
    }
    int dsmem = 0;
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        if (!(x->flags & (AU_F_DSMEM | AU_F_DSMEM_UNCALIBRATED)))
            continue;
        if (!dsmem++)
            fprintf(out, "\nDistributed shared memory (cluster) atomics: U of the local unit (this SM's "
                         "shared atomics) and of the\nDSMEM path (requests to other SMs of the cluster); "
                         "U is the larger (docs/model.md, \"DSMEM\"):\n");
        if (x->flags & AU_F_DSMEM_UNCALIBRATED)
            fprintf(out, "%4lld  cluster %g: %.0f generic atomics, not priced: the table has no dsmem "
                         "families (atomutil-calibrate --families dsmem_local,dsmem_remote)\n",
                    l->id, (l->ctr.have & AU_C_CLUSTER) ? l->ctr.cluster_size : 0, l->ctr.generic_jobs);
        else
            fprintf(out, "%4lld  cluster %g: generic atomics %.0f, local U %.1f %%, DSMEM path U %.1f %%%s\n",
                    l->id, (l->ctr.have & AU_C_CLUSTER) ? l->ctr.cluster_size : 0, l->ctr.generic_jobs,
                    x->util_local * 100, x->util_remote * 100,
                    (x->flags & AU_F_DSMEM_OTHER_TRAFFIC) ? " (its atomics' share of the DSMEM traffic)" : "");
    }
    /* DSMEM traffic without atomics (library kernels with clusters): seen, not priced */
    size_t other = 0;
    for (size_t i = 0; i < r->count; ++i)
        other += (r->launches[i].res.flags & (AU_F_DSMEM_OTHER_TRAFFIC | AU_F_DSMEM)) == AU_F_DSMEM_OTHER_TRAFFIC;
    if (other)
        fprintf(out, "\n%zu launch%s sent loads or stores, not atomics, to other SMs' shared memory (flag "
                     "dsmem_other_traffic): not in U\n", other, other == 1 ? "" : "es");
    render_opcodes_human(r, out);
}

/* ------------------------------------------------------------ CSV */

static void csv_str(FILE *out, const char *s)
{
    au_fput_text(out, s, AU_TEXT_CSV);
}

/* ",value" where present, else ",": an optional column */
static void csv_opt(FILE *out, int present, const char *fmt, double v)
{
    fputc(',', out);
    if (present)
        fprintf(out, fmt, v);
}

static void render_csv(const au_report *r, FILE *out)
{
    const au_table_meta *m = r->table ? au_table_get_meta(r->table) : NULL;
    fputs("launch_id,process_id,kernel,grid,block,device,cc,sm_count,duration_ns,jobs,cas_jobs,"
          "wavefronts,jobs_per_sm,a_passes_per_job,queue_len,cas_queued,service_cycles,"
          "busy_cycles,active_cycles,util_pct,verdict,flags,missing,table,family,busy_mode,"
          "opcode_classes,util_pct_by_family,wavefronts_max,active_cycles_max,imbalance,"
          "util_pct_busiest_sm,shared_wavefronts,shared_ld_inst,shared_st_inst,util_pct_lo,util_pct_hi,"
          "generic_jobs,dshared_wavefronts,dshared_xbar_cycles,cluster_size,util_pct_local,util_pct_dsmem,"
          "dshared_sectors,dshared_sectors_atom\n",
          out);
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        char fl[256];
        au_flags_string(x->flags, fl, sizeof fl);
        fprintf(out, "%lld,%lld,", l->id, l->pid);
        csv_str(out, l->kernel ? l->kernel : "");
        fputc(',', out);
        csv_str(out, l->grid);
        fputc(',', out);
        csv_str(out, l->block);
        fputc(',', out);
        csv_str(out, l->device[0] ? l->device : (m ? m->gpu_name : ""));
        fprintf(out, ",%d.%d,%d,", l->cc_major, l->cc_minor, l->sm_count);
        if (l->duration_ns >= 0)
            fprintf(out, "%.0f", l->duration_ns);
        fprintf(out, ",%.0f,%.0f,%.0f,", l->ctr.jobs, l->ctr.cas_jobs, l->ctr.wavefronts);
        if (x->flags & AU_F_UNUSABLE) /* the eight figures below, empty */
            fprintf(out, ",,,,,,,,");
        else
            fprintf(out, "%.2f,%.4f,%.3f,%.3f,%.4f,%.1f,%.1f,%.3f,", x->jobs, x->a, x->queue_len,
                    x->cas_queued, x->service, x->busy, x->active, x->util * 100);
        /* flags are comma separated: one quoted field */
        fprintf(out, "%s,", au_verdict_name(x->verdict));
        csv_str(out, fl);
        fputc(',', out);
        csv_str(out, l->missing_names);
        fputc(',', out);
        csv_str(out, r->table ? au_table_path(r->table) : "");
        fprintf(out, ",%s,%s,", r->family, au_busy_mode_name(r->busy));
        csv_str(out, l->ops ? l->ops->classes : "");
        if (l->ops && !(x->flags & AU_F_UNUSABLE))
            fprintf(out, ",%.1f", l->ops->by_family.util * 100);
        else
            fputc(',', out);
        /* optional columns: empty where the counter is absent or the figure does not apply; the
         * last five are the load counters of CAS loops and U's range where their loads were
         * estimated */
        int est = (x->flags & AU_F_RANGE) != 0;
        csv_opt(out, l->ctr.have & AU_C_WAVEFRONTS_MAX, "%.0f", l->ctr.wavefronts_max);
        csv_opt(out, l->ctr.have & AU_C_ACTIVE_MAX, "%.0f", l->ctr.active_max);
        csv_opt(out, x->imbalance > 0, "%.4f", x->imbalance);
        csv_opt(out, x->util_busiest > 0, "%.3f", x->util_busiest * 100);
        csv_opt(out, l->ctr.have & AU_C_SHARED_WAVEFRONTS, "%.0f", l->ctr.shared_wavefronts);
        csv_opt(out, l->ctr.have & AU_C_LD_INST, "%.0f", l->ctr.ld_inst);
        csv_opt(out, l->ctr.have & AU_C_ST_INST, "%.0f", l->ctr.st_inst);
        csv_opt(out, est, "%.3f", x->util_lo * 100);
        csv_opt(out, est, "%.3f", x->util_hi * 100);
        csv_opt(out, l->ctr.have & AU_C_GENERIC, "%.0f", l->ctr.generic_jobs);
        csv_opt(out, l->ctr.have & AU_C_DSHARED_WF, "%.0f", l->ctr.dshared_wavefronts);
        csv_opt(out, l->ctr.have & AU_C_DSHARED_XBAR, "%.0f", l->ctr.dshared_xbar);
        csv_opt(out, l->ctr.have & AU_C_CLUSTER, "%g", l->ctr.cluster_size);
        csv_opt(out, x->flags & AU_F_DSMEM, "%.3f", x->util_local * 100);
        csv_opt(out, x->flags & AU_F_DSMEM, "%.3f", x->util_remote * 100);
        csv_opt(out, l->ctr.have & AU_C_DSHARED_SECT, "%.0f", l->ctr.dshared_sectors);
        csv_opt(out, l->ctr.have & AU_C_DSHARED_SECT_ATOM, "%.0f", l->ctr.dshared_sectors_atom);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------ JSON */

static void json_str(FILE *out, const char *s)
{
    au_fput_text(out, s, AU_TEXT_JSON);
}

static void json_num(FILE *out, const char *key, double v, int last)
{
    if (isfinite(v))
        fprintf(out, "\"%s\": %.6g%s", key, v, last ? "" : ", ");
    else
        fprintf(out, "\"%s\": null%s", key, last ? "" : ", ");
}

/* ok: the launch has a U (its price by --family is not printed otherwise) */
static void json_opcodes(FILE *out, const au_opsplit *o, int ok)
{
    char fl[256];
    fprintf(out, ",\n     \"opcodes\": {\"classes\": ");
    json_str(out, o->classes);
    fprintf(out, ", ");
    json_num(out, "util_pct_by_family", ok ? o->by_family.util * 100 : NAN, 0);
    json_num(out, "service_cycles_by_family", ok ? o->by_family.service : NAN, 0);
    fprintf(out, "\"flags\": \"%s\",\n       \"by_class\": [", au_flags_string(o->flags, fl, sizeof fl));
    for (size_t c = 0; c < o->nclass; ++c) {
        fprintf(out, "%s{\"family\": ", c ? ", " : "");
        json_str(out, o->cls[c].family);
        fprintf(out, ", \"instructions\": %zu, ", o->cls[c].ninstr);
        json_num(out, "jobs", o->cls[c].jobs, 0);
        json_num(out, "busy_cycles", o->cls[c].busy, 1);
        fputc('}', out);
    }
    fprintf(out, "],\n       \"instructions\": [");
    for (size_t k = 0; k < o->ninstr; ++k) {
        const au_instr *x = &o->instr[k];
        fprintf(out, "%s\n         {\"function\": ", k ? "," : "");
        json_str(out, x->function);
        fprintf(out, ", \"pc\": %u, \"opcode\": ", x->pc);
        json_str(out, x->opcode);
        fprintf(out, ", \"family\": ");
        json_str(out, x->family);
        fprintf(out, ", \"source\": ");
        json_str(out, x->source);
        fputc('}', out);
    }
    fprintf(out, "]}");
}

static void render_json(const au_report *r, FILE *out)
{
    const au_table_meta *m = r->table ? au_table_get_meta(r->table) : NULL;
    fprintf(out, "{\n  \"tool\": \"atomutil\", \"version\": \"%s\",\n  \"source\": ", AU_VERSION_STRING);
    json_str(out, r->source);
    fprintf(out, ",\n  \"table\": ");
    if (m) {
        fprintf(out, "{\"path\": ");
        json_str(out, au_table_path(r->table));
        fprintf(out, ", \"gpu_name\": ");
        json_str(out, m->gpu_name);
        fprintf(out, ", \"compute_capability\": \"%d.%d\", \"method\": \"%s\", \"status\": \"%s\"}",
                m->cc_major, m->cc_minor, m->method, m->status);
    } else {
        fprintf(out, "null");
    }
    fprintf(out, ",\n  \"family\": \"%s\", \"busy_mode\": \"%s\",\n  \"thresholds_pct\": {\"atomic_bound\": %.6g, "
                 "\"significant\": %.6g},\n  \"launches\": [",
            r->family, au_busy_mode_name(r->busy), r->thr.bound * 100, r->thr.significant * 100);
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        int ok = !(x->flags & AU_F_UNUSABLE);
        fprintf(out, "%s\n    {\"launch_id\": %lld, \"process_id\": %lld, \"kernel\": ", i ? "," : "",
                l->id, l->pid);
        json_str(out, l->kernel ? l->kernel : "");
        fprintf(out, ", \"grid\": ");
        json_str(out, l->grid);
        fprintf(out, ", \"block\": ");
        json_str(out, l->block);
        fprintf(out, ", \"device\": ");
        json_str(out, l->device);
        fprintf(out, ", \"cc\": \"%d.%d\", \"sm_count\": %d, ", l->cc_major, l->cc_minor, l->sm_count);
        json_num(out, "duration_ns", l->duration_ns >= 0 ? l->duration_ns : NAN, 0);
        fprintf(out, "\n     \"counters\": {");
        json_num(out, "jobs", (l->ctr.have & AU_C_JOBS) ? l->ctr.jobs : NAN, 0);
        json_num(out, "cas_jobs", (l->ctr.have & AU_C_CAS) ? l->ctr.cas_jobs : NAN, 0);
        json_num(out, "wavefronts", (l->ctr.have & AU_C_WAVEFRONTS) ? l->ctr.wavefronts : NAN, 0);
        json_num(out, "active_cycles_avg", (l->ctr.have & AU_C_ACTIVE_CYCLES) ? l->ctr.active_cycles : NAN, 0);
        json_num(out, "warps_per_active_cycle", (l->ctr.have & AU_C_WARPS) ? l->ctr.warps : NAN, 0);
        json_num(out, "wavefronts_max", (l->ctr.have & AU_C_WAVEFRONTS_MAX) ? l->ctr.wavefronts_max : NAN, 0);
        json_num(out, "active_cycles_max", (l->ctr.have & AU_C_ACTIVE_MAX) ? l->ctr.active_max : NAN, 0);
        json_num(out, "shared_wavefronts", (l->ctr.have & AU_C_SHARED_WAVEFRONTS) ? l->ctr.shared_wavefronts : NAN, 0);
        json_num(out, "shared_ld_inst", (l->ctr.have & AU_C_LD_INST) ? l->ctr.ld_inst : NAN, 0);
        json_num(out, "shared_st_inst", (l->ctr.have & AU_C_ST_INST) ? l->ctr.st_inst : NAN, 0);
        json_num(out, "generic_jobs", (l->ctr.have & AU_C_GENERIC) ? l->ctr.generic_jobs : NAN, 0);
        json_num(out, "dshared_wavefronts", (l->ctr.have & AU_C_DSHARED_WF) ? l->ctr.dshared_wavefronts : NAN, 0);
        json_num(out, "dshared_xbar_cycles", (l->ctr.have & AU_C_DSHARED_XBAR) ? l->ctr.dshared_xbar : NAN, 0);
        json_num(out, "dshared_sectors", (l->ctr.have & AU_C_DSHARED_SECT) ? l->ctr.dshared_sectors : NAN, 0);
        json_num(out, "dshared_sectors_atom",
                 (l->ctr.have & AU_C_DSHARED_SECT_ATOM) ? l->ctr.dshared_sectors_atom : NAN, 0);
        json_num(out, "cluster_size", (l->ctr.have & AU_C_CLUSTER) ? l->ctr.cluster_size : NAN, 1);
        fprintf(out, "},\n     \"model\": {");
        json_num(out, "jobs_per_sm", ok ? x->jobs : NAN, 0);
        json_num(out, "a_passes_per_job", ok ? x->a : NAN, 0);
        json_num(out, "queue_len", ok ? x->queue_len : NAN, 0);
        json_num(out, "cas_queued", ok ? x->cas_queued : NAN, 0);
        json_num(out, "service_cycles", ok ? x->service : NAN, 0);
        json_num(out, "busy_cycles", ok ? x->busy : NAN, 0);
        json_num(out, "active_cycles", ok ? x->active : NAN, 0);
        json_num(out, "util_pct", ok ? x->util * 100 : NAN, 0);
        json_num(out, "imbalance", x->imbalance > 0 ? x->imbalance : NAN, 0);
        json_num(out, "util_pct_busiest_sm", x->util_busiest > 0 ? x->util_busiest * 100 : NAN, 0);
        int est = (x->flags & AU_F_RANGE) != 0;
        json_num(out, "util_pct_lo", est ? x->util_lo * 100 : NAN, 0);
        json_num(out, "util_pct_hi", est ? x->util_hi * 100 : NAN, 0);
        json_num(out, "util_pct_local", (x->flags & AU_F_DSMEM) ? x->util_local * 100 : NAN, 0);
        json_num(out, "util_pct_dsmem", (x->flags & AU_F_DSMEM) ? x->util_remote * 100 : NAN, 1);
        fprintf(out, "},\n     \"verdict\": \"%s\", \"flags\": [", au_verdict_name(x->verdict));
        char fl[256];
        au_flags_string(x->flags, fl, sizeof fl);
        for (char *tok = fl, *next; tok && *tok; tok = next) {
            next = strchr(tok, ',');
            if (next)
                *next++ = '\0';
            fprintf(out, "%s\"%s\"", tok == fl ? "" : ", ", tok);
        }
        fprintf(out, "], \"missing\": ");
        json_str(out, l->missing_names);
        if (l->ops)
            json_opcodes(out, l->ops, ok);
        fputc('}', out);
    }
    fprintf(out, "\n  ]\n}\n");
}

int au_report_render(const au_report *r, au_format fmt, FILE *out)
{
    if (!r || !out)
        return au_set_error(AU_E_INVAL, "au_report_render: invalid argument");
    switch (fmt) {
    case AU_FMT_TABLE: render_table(r, out); break;
    case AU_FMT_CSV: render_csv(r, out); break;
    case AU_FMT_JSON: render_json(r, out); break;
    default: return au_set_error(AU_E_INVAL, "au_report_render: unknown format");
    }
    if (ferror(out))
        return au_set_error(AU_E_IO, "write error on output");
    return AU_OK;
}
