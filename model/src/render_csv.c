/*
 * render_csv.c - the CSV report: one row per launch (or per kernel, --summary), units in the column
 * names, optional columns empty where a counter is absent or a figure does not apply (docs/cli.md).
 */
#include "internal.h"
#include "render.h"

#include <stdio.h>

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

/* the advisor's columns (docs/advisor.md): empty where a cure does not apply or no duration is known */
static void csv_advice(FILE *out, const au_launch *l)
{
    const au_advice *a = l->adv;
    int best = a && a->best >= 0, timed = l->duration_ns > 0;
    csv_opt(out, best && timed, "%.0f", best ? a->saves_ns : 0);
    fprintf(out, ",%s", best ? au_cure_name(a->best) : "");
    for (int k = 0; k < AU_CURE_COUNT; ++k) {
        const au_whatif *w = a ? &a->w[k] : NULL;
        int on = w && w->applies;
        csv_opt(out, on, "%.1f", on ? w->busy : 0);
        csv_opt(out, on && timed, "%.0f", on ? w->time_ns : 0);
        csv_opt(out, on && timed, "%.0f", on ? w->time_lo_ns : 0);
        csv_opt(out, on && timed, "%.0f", on ? w->time_hi_ns : 0);
    }
}

void au_render_csv(const au_report *r, FILE *out)
{
    const au_table_meta *m = r->table ? au_table_get_meta(r->table) : NULL;
    if (r->nfiles > 1) /* the file first: launch ids count per file */
        fputs("file,", out);
    fputs("launch_id,process_id,kernel,grid,block,device,cc,sm_count,duration_ns,jobs,cas_jobs,"
          "wavefronts,jobs_per_sm,a_passes_per_job,queue_len,cas_queued,service_cycles,"
          "busy_cycles,active_cycles,util_pct,verdict,flags,missing,table,family,busy_mode,"
          "opcode_classes,util_pct_by_family,wavefronts_max,active_cycles_max,imbalance,"
          "util_pct_busiest_sm,shared_wavefronts,shared_ld_inst,shared_st_inst,util_pct_lo,util_pct_hi,"
          "generic_jobs,dshared_wavefronts,dshared_xbar_cycles,cluster_size,util_pct_local,util_pct_dsmem,"
          "dshared_sectors,dshared_sectors_atom,loop_entries,l2_hit_sectors,dram_read_bytes,could_save_ns,best_cure",
          out);
    for (int k = 0; k < AU_CURE_COUNT; ++k)
        fprintf(out, ",whatif_%s_busy_cycles,whatif_%s_time_ns,whatif_%s_time_lo_ns,whatif_%s_time_hi_ns",
                au_cure_name(k), au_cure_name(k), au_cure_name(k), au_cure_name(k));
    fputc('\n', out);
    for (size_t i = 0; i < r->count; ++i) {
        const au_launch *l = &r->launches[i];
        const au_result *x = &l->res;
        char fl[256], dims[48];
        au_flags_string(x->flags, fl, sizeof fl);
        if (r->nfiles > 1) {
            csv_str(out, r->files[l->file]);
            fputc(',', out);
        }
        fprintf(out, "%lld,%lld,", l->id, l->pid);
        csv_str(out, l->kernel ? l->kernel : "");
        fputc(',', out);
        csv_str(out, au_dims_text(l->grid, l->dims & AU_DIMS_GRID, 0, dims, sizeof dims));
        fputc(',', out);
        csv_str(out, au_dims_text(l->block, l->dims & AU_DIMS_BLOCK, 0, dims, sizeof dims));
        fputc(',', out);
        csv_str(out, l->device[0] ? l->device : (m ? m->gpu_name : ""));
        fprintf(out, ",%d.%d,%d,", l->cc_major, l->cc_minor, l->sm_count);
        if (l->duration_ns >= 0)
            fprintf(out, "%.0f", l->duration_ns);
        fprintf(out, ",%.0f,%.0f,%.0f,", l->ctr.jobs, l->ctr.cas_jobs, l->ctr.wavefronts);
        if (x->flags & AU_F_UNUSABLE) /* the eight figures below, empty */
            fprintf(out, ",,,,,,,,");
        else
            fprintf(out, "%.2f,%.4f,%.3f,%.3f,%.4f,%.1f,%.1f,%.3f,", x->jobs, x->a, x->queue_len, x->cas_queued,
                    x->service, x->busy, x->active, x->util * 100);
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
        csv_opt(out, l->ctr.have & AU_C_LOOP_ENTRIES, "%.0f", l->ctr.loop_entries);
        csv_opt(out, l->ctr.have & AU_C_L2_HIT, "%.0f", l->ctr.l2_hit_sectors);
        csv_opt(out, l->ctr.have & AU_C_DRAM_READ, "%.0f", l->ctr.dram_read_bytes);
        csv_advice(out, l);
        fputc('\n', out);
    }
}

/* The summary's rows of s, each after file (NULL: no file column). */
static void summary_rows(const au_summary *s, const char *file, FILE *out)
{
    for (size_t j = 0; j < s->n; ++j) {
        const au_kernel_stat *k = &s->k[j];
        if (file) {
            csv_str(out, file);
            fputc(',', out);
        }
        csv_str(out, k->name);
        fprintf(out, ",%zu,%zu", k->launches, k->evaluated);
        csv_opt(out, k->timed > 0, "%.0f", k->time_ns);
        csv_opt(out, k->timed > 0, "%.1f", k->timed ? k->time_ns / (double)k->timed : 0);
        csv_opt(out, k->timed > 0 && s->time_ns > 0, "%.3f", s->time_ns > 0 ? 100 * k->time_ns / s->time_ns : 0);
        csv_opt(out, k->evaluated > 0, "%.3f", k->util * 100);
        csv_opt(out, k->evaluated > 0, "%.3f", k->util_min * 100);
        csv_opt(out, k->evaluated > 0, "%.3f", k->util_max * 100);
        fprintf(out, ",%s,%s,", au_verdict_name(k->worst), au_verdict_name(k->common));
        csv_str(out, k->classes);
        csv_opt(out, k->best >= 0, "%.0f", k->save_ns);
        fprintf(out, ",%s\n", k->best >= 0 ? au_cure_name(k->best) : "");
    }
}

/* With several files, a file column: each file's kernels (their shares of that file's time), then
 * all files together, file empty. */
int au_render_summary_csv(const au_report *r, const au_summary *s, FILE *out)
{
    int several = r->nfiles > 1;
    fputs(several ? "file," : "", out);
    fputs("kernel,launches,launches_evaluated,time_ns,mean_time_ns,time_pct,util_pct,util_pct_min,util_pct_max,"
          "verdict_worst,verdict_common,opcode_classes,could_save_ns,best_cure\n",
          out);
    for (size_t f = 0; several && f < r->nfiles; ++f) {
        au_summary one;
        int rc = au_summary_make_file(r, f, &one);
        if (rc == AU_OK && (rc = au_summary_sort_by_time(&one)) == AU_OK)
            summary_rows(&one, r->files[f], out);
        au_summary_free(&one);
        if (rc != AU_OK)
            return rc;
    }
    summary_rows(s, several ? "" : NULL, out);
    return AU_OK;
}
