/*
 * opsplit.c - a launch priced by the opcodes of its kernel's shared atomics (atomutil-profile
 * --opcodes, docs/opcodes.md), in its evaluation (au_launch_eval) once its family's price is known.  The code says which families the jobs belong to; the counters say
 * how many jobs are CAS-class (the CAS counter counts ATOMS.CAS* and .CAST.SPIN*) and how many are
 * not; au_model_eval_classes prices the classes.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void au_opsplit_free(au_opsplit *o)
{
    if (!o)
        return;
    free(o->instr);
    free(o->nodes);
    free(o);
}

/* A generic-address atomic (ATOM, not ATOMS or ATOMG): distributed shared memory's, among others. */
static int is_generic_atomic(const char *opcode)
{
    return strncmp(opcode, "ATOM.", 5) == 0 || strcmp(opcode, "ATOM") == 0;
}

/* Whether the launch was measured with the cluster counter set (docs/counters.md): its generic
 * atomics are then priced from the DSMEM counters (au_dsmem_apply), as class "dsmem". */
static int cluster_set(const au_launch *l)
{
    return (l->ctr.have & AU_C_DSHARED_PATH) != 0;
}

/* The kernel's generic atomics as their own class, after the ATOMS classes: "dsmem" in the cluster
 * set (their jobs counted, priced by au_dsmem_apply); otherwise "generic" (docs/opcodes.md,
 * "Generic atomics"): the counters count their wavefronts (and in the generic set their
 * instructions, the class's jobs), which a launch without ATOMS jobs prices as a whole (busy: its
 * share of B), and which raise the ATOMS classes' a otherwise. */
static void add_generic_class(au_opsplit *o, const au_launch *l, size_t ninstr, double busy)
{
    if (!ninstr || o->nclass == AU_MAX_CLASSES)
        return;
    au_class_share *c = &o->cls[o->nclass++];
    memset(c, 0, sizeof *c);
    const int cl = cluster_set(l);
    au_strlcpy(c->family, cl ? "dsmem" : "generic", sizeof c->family);
    c->ninstr = ninstr;
    c->jobs = (cl || au_generic_counted(&l->ctr)) && (l->ctr.have & AU_C_GENERIC) ? l->ctr.generic_jobs : 0;
    c->busy = !cl ? busy : (l->res.flags & AU_F_DSMEM) ? l->res.util_remote * l->res.active : 0;
}

static int is_shared_atomic(const char *opcode)
{
    return strncmp(opcode, "ATOMS", 5) == 0 && (opcode[5] == '\0' || opcode[5] == '.');
}

/* Warps of a launch from its grid and block, 0 when the source did not give them. */
static double launch_warps(const au_launch *l)
{
    if ((l->dims & (AU_DIMS_GRID | AU_DIMS_BLOCK)) != (AU_DIMS_GRID | AU_DIMS_BLOCK))
        return 0;
    const unsigned *g = l->grid, *b = l->block;
    return (double)g[0] * g[1] * g[2] * ceil((double)b[0] * b[1] * b[2] / 32);
}

/* The loads of CAS loops where the counters alone leave them uncertain (au_loop_loads returned 2:
 * more loads and stores than attempts), narrowed with the kernel's code: when no shared load
 * outside its CAS loops sits in a loop, the loads beyond the attempts' are the loops' own
 * reloads, the stores, and loads run at most once per warp (cold_loads sites).  The estimate then
 * gives the stores and those cold loads one wavefront each, and the lower bound 32 (their worst
 * conflict); lw = {estimate, lower, upper} are GPU-wide wavefronts. */
static void narrow_by_code(const au_launch *l, double loop_jobs, double *lw)
{
    const au_load_sites *s = &l->sites;
    double warps = launch_warps(l);
    if (!s->known || s->hot_loads > 0 || s->cas_loops == 0 || !(warps > 0))
        return;
    double wo = lw[2];
    double extra = fmax(l->ctr.ld_inst - loop_jobs, 0);
    double cold = fmin(warps * s->cold_loads, extra) + fmax(l->ctr.st_inst, 0);
    lw[0] = fmax(wo - cold, lw[1]);
    lw[1] = fmax(wo - 32 * cold, lw[1]);
    if (lw[0] < lw[1])
        lw[0] = lw[1];
}

/* The kernel's shared-atomic (and generic-atomic) instructions into o->instr, its classes into
 * o->cls with their instruction counts; cnt = {CAS-class, other, generic} instructions; exec[c]
 * the executions of class c's instructions where the code gives them (their jobs field). */
static void collect_classes(au_opsplit *o, const au_table *t, const au_launch *l, const au_instr *in, size_t n,
                            size_t cnt[3], double *exec)
{
    cnt[0] = cnt[1] = cnt[2] = 0;
    for (size_t i = 0; i < n; ++i) {
        if (is_generic_atomic(in[i].opcode)) {
            au_instr *x = &o->instr[o->ninstr++];
            *x = in[i];
            x->jobs = x->wavefronts = x->threads = x->busy = 0;
            /* outside the cluster set: the generic family where the instruction lands in shared
             * memory as it is; a form whose shared-memory path is a CAS loop is listed, not priced */
            const char *fam = cluster_set(l) ? "dsmem" : au_generic_lands_in_shared(x->opcode) ? "generic" : "-";
            au_strlcpy(x->family, fam, sizeof x->family);
            cnt[2] += fam[0] != '-';
            continue;
        }
        if (!is_shared_atomic(in[i].opcode))
            continue;
        au_instr *x = &o->instr[o->ninstr++];
        *x = in[i];
        x->jobs = x->wavefronts = x->threads = x->busy = 0;
        const char *fam = au_opcode_family(x->opcode);
        if (!fam || !au_table_has_family(t, fam)) {
            o->flags |= AU_F_UNKNOWN_OPCODE;
            fam = "add";
        }
        au_strlcpy(x->family, fam, sizeof x->family);
        size_t c;
        for (c = 0; c < o->nclass; ++c)
            if (strcmp(o->cls[c].family, fam) == 0)
                break;
        if (c == o->nclass) {
            if (o->nclass == AU_MAX_CLASSES)
                continue; /* cannot happen: the table has fewer families */
            memset(&o->cls[c], 0, sizeof o->cls[c]);
            au_strlcpy(o->cls[c].family, fam, sizeof o->cls[c].family);
            exec[c] = 0;
            o->nclass++;
        }
        o->cls[c].ninstr++;
        exec[c] += in[i].jobs > 0 ? in[i].jobs : 0;
        *(au_family_is_cas_class(fam) ? &cnt[0] : &cnt[1]) += 1;
    }
}

void au_classes_sort(au_class_share *cls, size_t n)
{
    for (size_t a = 1; a < n; ++a) /* insertion: stable, and n is at most AU_MAX_CLASSES */
        for (size_t b = a; b > 0 && cls[b].jobs > cls[b - 1].jobs; --b) {
            au_class_share tmp = cls[b];
            cls[b] = cls[b - 1];
            cls[b - 1] = tmp;
        }
}

void au_classes_text(const au_class_share *cls, size_t n, double jobs, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < n && jobs > 0 && cls[c].jobs > 0 && used < size; ++c) {
        int w =
            snprintf(buf + used, size - used, "%s%s %.0f%%", c ? ", " : "", cls[c].family, 100.0 * cls[c].jobs / jobs);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* The counters' J jobs shared among o's classes (o->cls[].jobs, largest first) within their kind:
 * by the executions of their instructions where the code gives them for every one (counted: an
 * Nsight Compute report's per-instruction counts), else by instruction count (an estimate); and
 * o->classes, their shares in words. */
static void split_jobs(au_opsplit *o, const au_launch *l, double J, size_t ninstr_cas, size_t ninstr_other,
                       const double *exec, int counted)
{
    /* a share the code cannot hold goes to the kind it has */
    double Jc = J > 0 ? fmin(fmax(l->ctr.cas_jobs, 0), J) : 0, Jn = J - Jc;
    if (ninstr_cas == 0 && Jc > 0) {
        if (Jc > 0.005 * J)
            o->flags |= AU_F_OPCODE_MISMATCH;
        Jn = J, Jc = 0;
    }
    if (ninstr_other == 0 && Jn > 0) {
        if (Jn > 0.005 * J)
            o->flags |= AU_F_OPCODE_MISMATCH;
        Jc = J, Jn = 0;
    }
    size_t fam_cas = 0, fam_other = 0;
    double w_cas = 0, w_other = 0;
    for (size_t c = 0; c < o->nclass; ++c)
        *(au_family_is_cas_class(o->cls[c].family) ? &w_cas : &w_other) += counted ? exec[c] : (double)o->cls[c].ninstr;
    for (size_t c = 0; c < o->nclass; ++c) {
        int cas = au_family_is_cas_class(o->cls[c].family);
        double w = counted ? exec[c] : (double)o->cls[c].ninstr;
        o->cls[c].jobs = cas ? (w_cas > 0 ? Jc * w / w_cas : 0) : (w_other > 0 ? Jn * w / w_other : 0);
        *(cas ? &fam_cas : &fam_other) += o->cls[c].jobs > 0;
    }
    if (!counted && (fam_cas > 1 || fam_other > 1))
        o->flags |= AU_F_SPLIT_ESTIMATED;
    au_classes_sort(o->cls, o->nclass);
    au_classes_text(o->cls, o->nclass, J, o->classes, sizeof o->classes);
}

/* A launch whose classes are not priced (no jobs, no counters, or no shared atomic in its code)
 * keeps its result, with o's flags, and gets o.  One whose wavefronts no counted job explains
 * (flag unpriced_wavefronts, priced per wavefront with a range by au_model_eval) and whose code
 * has generic atomics that land in shared memory is theirs: class generic, flag opcodes, the same
 * range (the code names them, not their passes); where the table lacks the generic family they
 * were priced as add (flag unknown_opcode). */
static void keep_unpriced(au_opsplit *o, au_launch *l, const au_table *t, size_t ninstr_generic)
{
    double busy = 0;
    if (ninstr_generic && !cluster_set(l) &&
        ((l->res.flags & AU_F_UNPRICED_WAVEFRONTS) ||
         (au_generic_counted(&l->ctr) && !(l->res.flags & AU_F_UNUSABLE)))) {
        l->res.flags |= AU_F_OPCODES;
        if (!au_table_has_family(t, "generic"))
            o->flags |= AU_F_UNKNOWN_OPCODE;
        snprintf(o->classes, sizeof o->classes, "generic 100%%");
        busy = l->res.busy;
    }
    add_generic_class(o, l, ninstr_generic, busy);
    l->res.flags |= o->flags;
    au_opsplit_free(l->ops);
    l->ops = o;
}

int au_opsplit_price(au_launch *l, const au_table *t, const au_instr *in, size_t n, int counted,
                     const au_thresholds *thr, au_busy_mode busy)
{
    au_opsplit *o = calloc(1, sizeof *o);
    if (!o || !(o->instr = calloc(n ? n : 1, sizeof *o->instr))) {
        free(o);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    o->by_family = l->res;
    /* the kernel's shared atomics and their families; instructions per family */
    size_t cnt[3];
    double exec[AU_MAX_CLASSES];
    collect_classes(o, t, l, in, n, cnt, exec);
    size_t ninstr_cas = cnt[0], ninstr_other = cnt[1], ninstr_generic = cnt[2];
    int usable = !(l->res.flags & AU_F_UNUSABLE);
    double J = usable ? l->ctr.jobs : 0;
    if (o->nclass == 0) {
        /* jobs but no shared atomic in the kernel's own code (a called, not inlined function?) */
        if (J > 0)
            o->flags |= AU_F_UNKNOWN_OPCODE;
        keep_unpriced(o, l, t, ninstr_generic);
        return AU_OK;
    }
    split_jobs(o, l, J, ninstr_cas, ninstr_other, exec, counted);
    if (!(J > 0)) {
        /* no jobs (or no counters): nothing to price */
        keep_unpriced(o, l, t, ninstr_generic);
        return AU_OK;
    }
    /* per SM, with the launch's a (passes per job) for every class */
    double scale = l->res.jobs / J, a = l->res.a > 0 ? l->res.a : 1;
    au_class_jobs cj[AU_MAX_CLASSES];
    double share[AU_MAX_CLASSES];
    /* the loads of the CAS loops' attempts (docs/model.md, "CAS loops"), shared by the loop
     * classes in proportion to their jobs */
    double loop_jobs = 0, lw[3];
    for (size_t c = 0; c < o->nclass; ++c)
        if (au_family_is_cas_loop(o->cls[c].family))
            loop_jobs += o->cls[c].jobs;
    int loads = au_loop_loads(&l->ctr, loop_jobs, &lw[0], &lw[1], &lw[2]);
    if (loads == 2)
        narrow_by_code(l, loop_jobs, lw);
    au_result r, rb[2], sat;
    int rc = AU_OK;
    /* the point estimate, then (loads estimated) U at the loads' lower and upper bounds */
    for (int v = 0; v < (loads == 2 ? 3 : 1) && rc == AU_OK; ++v) {
        for (size_t c = 0; c < o->nclass; ++c) {
            double jobs = o->cls[c].jobs * scale;
            int loop = au_family_is_cas_loop(o->cls[c].family);
            cj[c] =
                (au_class_jobs){o->cls[c].family, jobs, jobs * a * (au_family_is_cas_class(o->cls[c].family) ? 2 : 1),
                                !loop   ? 0
                                : loads ? lw[v] * scale * o->cls[c].jobs / loop_jobs
                                        : -1};
        }
        rc = au_model_eval_classes(t, cj, o->nclass, l->res.queue_len, l->res.active, thr, busy, v ? &rb[v - 1] : &r,
                                   v ? NULL : share);
        /* the queue mode's U may exceed the unit's capacity: its plausibility is checked there */
        if (rc == AU_OK && v == 0 && busy != AU_BUSY_SATURATED)
            rc = au_model_eval_classes(t, cj, o->nclass, l->res.queue_len, l->res.active, thr, AU_BUSY_SATURATED, &sat,
                                       NULL);
    }
    if (rc) {
        au_opsplit_free(o);
        return rc;
    }
    if (loads == 2) {
        r.util_lo = rb[0].util;
        r.util_hi = rb[1].util;
        r.flags |= AU_F_LOOP_LOADS_ESTIMATED;
        au_range_finish(&r, thr);
    }
    for (size_t c = 0; c < o->nclass; ++c)
        o->cls[c].busy = share[c];
    r.flags |= AU_F_OPCODES | o->flags |
               (l->res.flags & (AU_F_QUEUE_ESTIMATED | AU_F_SM_FROM_TABLE | AU_F_TABLE_OTHER_GPU |
                                AU_F_TABLE_OTHER_ARCH | AU_F_NO_WAVEFRONTS | AU_F_REPLAYED));
    r.missing = l->res.missing;
    /* the SM count au_report_eval used: the launch's, else the table's */
    int sm = l->sm_count > 0 ? l->sm_count : au_table_get_meta(t)->sm_count;
    au_result_busiest(&r, &l->ctr, sm);
    if ((rc = au_dsmem_apply(t, &l->ctr, sm, thr, busy, &r)) != AU_OK) {
        au_opsplit_free(o);
        return rc;
    }
    /* priced by its opcodes the launch's U may leave the physical range that its price by one
     * family kept (a CAS loop's attempts priced by their wavefronts) */
    au_result_check_util(&r, busy == AU_BUSY_SATURATED ? r.util : sat.util);
    au_opsplit_free(l->ops);
    l->ops = o;
    l->res = r;
    add_generic_class(o, l, ninstr_generic, 0);
    return AU_OK;
}
