/*
 * render_json.c - the JSON report: the table's metadata, then per launch its counters, the model's
 * figures (null where absent), verdict, flags and opcode classes; or per kernel (--summary) its
 * time, U and verdicts (docs/cli.md).
 */
#include "internal.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* "advice": what each cure that applies would buy (docs/advisor.md); times null without a duration */
static void json_advice(FILE *out, const au_launch *l)
{
    const au_advice *a = l->adv;
    double t = l->duration_ns > 0 ? 1 : NAN;
    fprintf(out, ",\n     \"advice\": {\"best\": \"%s\", \"best_words\": ", au_cure_name(a->best));
    json_str(out, au_cure_words(a->best));
    fprintf(out, ", ");
    json_num(out, "could_save_ns", a->saves_ns * t, 0);
    json_num(out, "could_save_cycles", a->saves, 0);
    fprintf(out, "\"whatif\": {");
    for (int k = 0, first = 1; k < AU_CURE_COUNT; ++k) {
        const au_whatif *w = &a->w[k];
        if (!w->applies)
            continue;
        fprintf(out, "%s\n       \"%s\": {", first ? "" : ",", au_cure_name(k));
        first = 0;
        json_num(out, "busy_cycles", w->busy, 0);
        json_num(out, "busy_cycles_lo", w->busy_lo, 0);
        json_num(out, "busy_cycles_hi", w->busy_hi, 0);
        json_num(out, "active_cycles", w->active, 0);
        json_num(out, "active_cycles_lo", w->active_lo, 0);
        json_num(out, "active_cycles_hi", w->active_hi, 0);
        json_num(out, "time_ns", w->time_ns * t, 0);
        json_num(out, "time_lo_ns", w->time_lo_ns * t, 0);
        json_num(out, "time_hi_ns", w->time_hi_ns * t, 0);
        json_num(out, "speedup_pct", 100 * (l->res.active - w->active) / l->res.active, 1);
        fputc('}', out);
    }
    fprintf(out, "}}");
}

/* ok: the launch has a U (its price by --family is not printed otherwise) */
static void json_opcodes(FILE *out, const au_opsplit *o, int ok)
{
    char fl[256];
    fprintf(out, ",\n     \"opcodes\": {\"classes\": ");
    json_str(out, o->classes);
    if (o->nodes) { /* a graph launch's kernel nodes */
        fprintf(out, ", \"graph_kernels\": ");
        json_str(out, o->nodes);
    }
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
        if (x->function[0])
            fprintf(out, ", \"pc\": %u, \"opcode\": ", x->pc);
        else /* counts per opcode (an Nsight Compute report's), not a listing: no pc */
            fprintf(out, ", \"pc\": null, \"opcode\": ");
        json_str(out, x->opcode);
        fprintf(out, ", \"family\": ");
        json_str(out, x->family);
        fprintf(out, ", \"source\": ");
        json_str(out, x->source);
        fputc('}', out);
    }
    fprintf(out, "]}");
}

/* The document's head, up to the key of its list (launches or kernels), whose '[' it writes. */
static void json_head(const au_report *r, const char *list, FILE *out)
{
    const au_table_meta *m = r->table ? au_table_get_meta(r->table) : NULL;
    fprintf(out, "{\n  \"tool\": \"atomutil\", \"version\": \"%s\",\n  \"source\": ", AU_VERSION_STRING);
    json_str(out, r->source);
    if (r->nfiles > 1) {
        fprintf(out, ",\n  \"files\": [");
        for (size_t f = 0; f < r->nfiles; ++f) {
            fputs(f ? ", " : "", out);
            json_str(out, r->files[f]);
        }
        fputc(']', out);
    }
    fprintf(out, ",\n  \"table\": ");
    if (m) {
        fprintf(out, "{\"path\": ");
        json_str(out, au_table_path(r->table));
        fprintf(out, ", \"gpu_name\": ");
        json_str(out, m->gpu_name);
        fprintf(out, ", \"compute_capability\": \"%d.%d\", \"method\": \"%s\", \"status\": \"%s\"}", m->cc_major,
                m->cc_minor, m->method, m->status);
    } else {
        fprintf(out, "null");
    }
    /* the launches measured by kernel replay (flag replayed): their driver calls' seconds */
    if (r->replayed > 0)
        fprintf(out, ",\n  \"replay\": {\"launches\": %lld, \"call_s\": %.6g}", r->replayed, r->replay_s);
    fprintf(out,
            ",\n  \"family\": \"%s\", \"busy_mode\": \"%s\",\n  \"thresholds_pct\": {\"atomic_bound\": %.6g, "
            "\"significant\": %.6g},\n  \"%s\": [",
            r->family, au_busy_mode_name(r->busy), r->thr.bound * 100, r->thr.significant * 100, list);
}

void au_render_json(const au_report *r, FILE *out)
{
    json_head(r, "launches", out);
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        int ok = !(x->flags & AU_F_UNUSABLE);
        char dims[48];
        fprintf(out, "%s\n    {\"launch_id\": %lld, \"process_id\": %lld, \"kernel\": ", i ? "," : "", l->id, l->pid);
        json_str(out, l->kernel ? l->kernel : "");
        if (r->nfiles > 1) {
            fprintf(out, ", \"file\": ");
            json_str(out, r->files[l->file]);
        }
        fprintf(out, ", \"grid\": ");
        json_str(out, au_dims_text(l->grid, l->dims & AU_DIMS_GRID, 0, dims, sizeof dims));
        fprintf(out, ", \"block\": ");
        json_str(out, au_dims_text(l->block, l->dims & AU_DIMS_BLOCK, 0, dims, sizeof dims));
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
        json_num(out, "loop_entries", (l->ctr.have & AU_C_LOOP_ENTRIES) ? l->ctr.loop_entries : NAN, 0);
        json_num(out, "l2_hit_sectors", (l->ctr.have & AU_C_L2_HIT) ? l->ctr.l2_hit_sectors : NAN, 0);
        json_num(out, "dram_read_bytes", (l->ctr.have & AU_C_DRAM_READ) ? l->ctr.dram_read_bytes : NAN, 0);
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
        if (l->adv && l->adv->best >= 0)
            json_advice(out, l);
        fputc('}', out);
    }
    fprintf(out, "\n  ]\n}\n");
}

/* The kernels of s as JSON objects, then its launches, time and the shares of it; indent: of the
 * objects' lines. */
static void summary_body(const au_summary *s, const char *indent, FILE *out)
{
    for (size_t j = 0; j < s->n; ++j) {
        const au_kernel_stat *k = &s->k[j];
        int ev = k->evaluated > 0, timed = k->timed > 0 && s->time_ns > 0;
        fprintf(out, "%s\n%s  {\"kernel\": ", j ? "," : "", indent);
        json_str(out, k->name);
        fprintf(out, ", \"launches\": %zu, \"launches_evaluated\": %zu,\n%s   ", k->launches, k->evaluated, indent);
        json_num(out, "time_ns", k->timed ? k->time_ns : NAN, 0);
        json_num(out, "mean_time_ns", k->timed ? k->time_ns / (double)k->timed : NAN, 0);
        json_num(out, "time_pct", timed ? 100 * k->time_ns / s->time_ns : NAN, 0);
        json_num(out, "util_pct", ev ? k->util * 100 : NAN, 0);
        json_num(out, "util_pct_min", ev ? k->util_min * 100 : NAN, 0);
        json_num(out, "util_pct_max", ev ? k->util_max * 100 : NAN, 0);
        fprintf(out, "\n%s   \"verdict_worst\": \"%s\", \"verdict_common\": \"%s\", \"opcode_classes\": ", indent,
                au_verdict_name(k->worst), au_verdict_name(k->common));
        json_str(out, k->classes);
        fprintf(out, ", ");
        json_num(out, "could_save_ns", k->best >= 0 ? k->save_ns : NAN, 0);
        fprintf(out, "\"best_cure\": ");
        if (k->best >= 0)
            fprintf(out, "\"%s\"", au_cure_name(k->best));
        else
            fprintf(out, "null");
        fputc('}', out);
    }
    fprintf(out, "\n%s],\n%s\"launches\": %zu, ", indent, indent, s->launches);
    json_num(out, "time_ns", s->timed ? s->time_ns : NAN, 0);
    fprintf(out, "\n%s\"time_pct\": {", indent);
    json_num(out, "atomic_bound", s->time_ns > 0 ? 100 * s->time_bound_ns / s->time_ns : NAN, 0);
    json_num(out, "significant", s->time_ns > 0 ? 100 * s->time_significant_ns / s->time_ns : NAN, 1);
    fputc('}', out);
}

/* The kernels of all files together; with several files, "files" holds each file's. */
int au_render_summary_json(const au_report *r, const au_summary *s, FILE *out)
{
    json_head(r, "kernels", out);
    summary_body(s, "  ", out);
    if (r->nfiles > 1)
        fprintf(out, ",\n  \"by_file\": [");
    for (size_t f = 0; r->nfiles > 1 && f < r->nfiles; ++f) {
        au_summary one;
        int rc = au_summary_make_file(r, f, &one);
        if (rc == AU_OK && (rc = au_summary_sort_by_time(&one)) == AU_OK) {
            fprintf(out, "%s\n    {\"file\": ", f ? "," : "");
            json_str(out, r->files[f]);
            fprintf(out, ",\n     \"kernels\": [");
            summary_body(&one, "     ", out);
            fputc('}', out);
        }
        au_summary_free(&one);
        if (rc != AU_OK)
            return rc;
    }
    fprintf(out, "%s\n}\n", r->nfiles > 1 ? "\n  ]" : "");
    return AU_OK;
}
