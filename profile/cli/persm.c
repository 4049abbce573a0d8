/*
 * persm.c - per-SM mode of atomutil-profile.  The SASS file gives, per launch, per shared-atomic
 * instruction and per SM, the executed warp-instructions and wavefronts; the cubin listings give
 * each instruction's opcode, hence its table family; the counters run gives the launch's queue
 * length and active cycles (GPU means: the hardware has no per-SM cycle counters, flag sm_rollup).
 * Each SM is evaluated with au_model_eval_classes; the report gets U per SM, its spread, the
 * busiest SM, the imbalance and the instructions ranked by busy time.
 */
#include "persm.h"

#include "atomutil/util.h"
#include "sass_file.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "atomutil-profile";

/* A CUDA tool by name, from $CUDA_HOME/bin, /usr/local/cuda/bin or PATH ("" if none). */
static void find_tool(const char *name, char *out, size_t size)
{
    const char *home = getenv("CUDA_HOME");
    const char *dirs[] = {home, "/usr/local/cuda"};
    for (size_t i = 0; i < 2; ++i) {
        if (!dirs[i] || !*dirs[i])
            continue;
        snprintf(out, size, "%s/bin/%s", dirs[i], name);
        if (access(out, X_OK) == 0)
            return;
    }
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(out, size, "%.*s/%s", (int)dl, p, name);
        if (dl && access(out, X_OK) == 0)
            return;
        if (!colon)
            break;
        p = colon + 1;
    }
    out[0] = '\0';
}

int au_persm_disassemble(const char *dir, int quiet)
{
    char nvdisasm[1024], cuobjdump[1024];
    find_tool("nvdisasm", nvdisasm, sizeof nvdisasm);
    find_tool("cuobjdump", cuobjdump, sizeof cuobjdump);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int failed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 7 || strcmp(e->d_name + l - 6, ".cubin") != 0 || strspn(e->d_name, "0123456789") != l - 6)
            continue; /* our own files only: "<crc>.cubin" */
        char cmd[4096];
        int ok = 0;
        if (nvdisasm[0]) {
            snprintf(cmd, sizeof cmd, "'%s' -g '%s/%s' > '%s/%.*s.sass' 2>/dev/null", nvdisasm, dir, e->d_name,
                     dir, (int)(l - 6), e->d_name);
            ok = system(cmd) == 0;
        }
        if (!ok && cuobjdump[0]) {
            snprintf(cmd, sizeof cmd, "'%s' -sass '%s/%s' > '%s/%.*s.sass' 2>/dev/null", cuobjdump, dir,
                     e->d_name, dir, (int)(l - 6), e->d_name);
            ok = system(cmd) == 0;
        }
        if (!ok) {
            ++failed;
            if (!quiet)
                fprintf(stderr, "%s: warning: cannot disassemble %s/%s (needs nvdisasm or cuobjdump of the "
                                "CUDA toolkit): its opcodes are unknown\n", prog, dir, e->d_name);
        }
    }
    closedir(d);
    return failed;
}

/* ------------------------------------------------------------------ opcode lookup per cubin */

typedef struct {
    uint32_t crc;
    au_sass_ops ops;
    int loaded;
} cubin_ops;

static const au_sass_op *find_op(cubin_ops **cache, size_t *n, const char *dir, uint32_t crc,
                                 const char *function, uint32_t pc)
{
    size_t i;
    for (i = 0; i < *n; ++i)
        if ((*cache)[i].crc == crc)
            break;
    if (i == *n) {
        cubin_ops *nc = realloc(*cache, (*n + 1) * sizeof *nc);
        if (!nc)
            return NULL;
        *cache = nc;
        cubin_ops *c = &nc[(*n)++];
        memset(c, 0, sizeof *c);
        c->crc = crc;
        char path[4096], *buf;
        size_t len;
        snprintf(path, sizeof path, "%s/%u.sass", dir, crc);
        if (au_read_file(path, (size_t)1 << 30, &buf, &len) == AU_OK) {
            c->loaded = au_sass_ops_parse(buf, len, &c->ops) == AU_OK;
            free(buf);
        }
    }
    const au_sass_ops *ops = &(*cache)[i].ops;
    for (size_t k = 0; k < ops->count; ++k)
        if (ops->v[k].pc == pc && strcmp(ops->v[k].function, function) == 0)
            return &ops->v[k];
    return NULL;
}

/* ------------------------------------------------------------------ attach */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_instr_busy(const void *a, const void *b)
{
    const au_instr *x = a, *y = b;
    return (y->busy > x->busy) - (y->busy < x->busy);
}

/* Ordinal of pid among the distinct pids in order of first appearance. */
static int pid_ordinal(long long *seen, size_t *nseen, size_t cap, long long pid)
{
    for (size_t i = 0; i < *nseen; ++i)
        if (seen[i] == pid)
            return (int)i;
    if (*nseen < cap)
        seen[(*nseen)++] = pid;
    return (int)*nseen - 1;
}

#define MAX_CLASSES 16

/* Builds the per-SM results of launch l from rows [lo, hi) of d. */
static int build(au_launch *l, const au_table *t, const au_sass_data *d, size_t lo, size_t hi,
                 cubin_ops **cache, size_t *ncache, const char *dir, const au_thresholds *thr)
{
    int nsm = l->sm_count;
    for (size_t r = lo; r < hi; ++r)
        if (d->rows[r].sm + 1 > nsm)
            nsm = d->rows[r].sm + 1;
    au_persm *p = calloc(1, sizeof *p);
    if (!p)
        return au_set_error(AU_E_NOMEM, "out of memory");
    p->nsm = (size_t)nsm;
    p->jobs = calloc(p->nsm, sizeof(double));
    p->a = calloc(p->nsm, sizeof(double));
    p->busy = calloc(p->nsm, sizeof(double));
    p->util = calloc(p->nsm, sizeof(double));
    /* distinct instructions of the launch */
    size_t cap = 0;
    for (size_t r = lo; r < hi; ++r) {
        const au_sass_row *w = &d->rows[r];
        size_t k;
        for (k = 0; k < p->ninstr; ++k)
            if (p->instr[k].pc == w->pc && strcmp(p->instr[k].function, w->function) == 0)
                break;
        if (k == p->ninstr) {
            if (p->ninstr == cap) {
                cap = cap ? cap * 2 : 16;
                au_instr *ni = realloc(p->instr, cap * sizeof *ni);
                if (!ni)
                    break;
                p->instr = ni;
            }
            au_instr *x = &p->instr[p->ninstr++];
            memset(x, 0, sizeof *x);
            au_strlcpy(x->function, w->function, sizeof x->function);
            x->pc = w->pc;
            const au_sass_op *op = find_op(cache, ncache, dir, w->crc, w->function, w->pc);
            const char *fam = op ? au_opcode_family(op->opcode) : NULL;
            au_strlcpy(x->opcode, op ? op->opcode : "?", sizeof x->opcode);
            au_strlcpy(x->source, op ? op->source : "", sizeof x->source);
            if (!fam || !au_table_has_family(t, fam)) {
                p->flags |= AU_F_UNKNOWN_OPCODE;
                fam = "add";
            }
            au_strlcpy(x->family, fam, sizeof x->family);
        }
        au_instr *x = &p->instr[k];
        x->jobs += w->inst;
        x->wavefronts += w->wavefronts;
        x->threads += w->threads;
        p->sass_jobs += w->inst;
    }
    if (!p->jobs || !p->a || !p->busy || !p->util || (hi > lo && !p->instr)) {
        au_persm_free(p);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    /* per SM: classes by family, the model, then each class's busy split over its instructions
     * by their wavefronts */
    double *instr_w = calloc(p->ninstr ? p->ninstr : 1, sizeof(double));
    if (!instr_w) {
        au_persm_free(p);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    int rc = AU_OK;
    for (int sm = 0; sm < nsm && rc == AU_OK; ++sm) {
        au_class_jobs cls[MAX_CLASSES];
        double share[MAX_CLASSES], cls_w[MAX_CLASSES];
        size_t ncls = 0;
        memset(instr_w, 0, p->ninstr * sizeof(double));
        for (size_t r = lo; r < hi; ++r) {
            const au_sass_row *w = &d->rows[r];
            if (w->sm != sm)
                continue;
            size_t k;
            for (k = 0; k < p->ninstr; ++k)
                if (p->instr[k].pc == w->pc && strcmp(p->instr[k].function, w->function) == 0)
                    break;
            const char *fam = k < p->ninstr ? p->instr[k].family : "add";
            size_t c;
            for (c = 0; c < ncls; ++c)
                if (strcmp(cls[c].family, fam) == 0)
                    break;
            if (c == ncls && ncls < MAX_CLASSES)
                cls[ncls++] = (au_class_jobs){fam, 0, 0};
            if (c < ncls) {
                cls[c].jobs += w->inst;
                cls[c].wavefronts += w->wavefronts;
            }
            if (k < p->ninstr)
                instr_w[k] += w->wavefronts > 0 ? w->wavefronts : w->inst;
        }
        au_result res;
        rc = au_model_eval_classes(t, cls, ncls, l->res.queue_len, l->res.active, thr, &res, share);
        if (rc)
            break;
        p->jobs[sm] = res.jobs;
        p->a[sm] = res.a;
        p->busy[sm] = res.busy;
        p->util[sm] = res.util;
        p->flags |= res.flags & (AU_F_CLAMP_N_LOW | AU_F_CLAMP_N_HIGH | AU_F_CLAMP_A | AU_F_OVER_100);
        for (size_t c = 0; c < ncls; ++c) {
            cls_w[c] = 0;
            for (size_t k = 0; k < p->ninstr; ++k)
                if (strcmp(p->instr[k].family, cls[c].family) == 0)
                    cls_w[c] += instr_w[k];
        }
        for (size_t k = 0; k < p->ninstr; ++k)
            for (size_t c = 0; c < ncls; ++c)
                if (strcmp(p->instr[k].family, cls[c].family) == 0 && cls_w[c] > 0)
                    p->instr[k].busy += share[c] * instr_w[k] / cls_w[c];
    }
    free(instr_w);
    if (rc) {
        au_persm_free(p);
        return rc;
    }
    /* spread */
    double *sorted = malloc(p->nsm * sizeof(double)), sum_busy = 0, max_busy = 0;
    if (!sorted) {
        au_persm_free(p);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < p->nsm; ++i) {
        sorted[i] = p->util[i];
        sum_busy += p->busy[i];
        if (p->busy[i] > max_busy) {
            max_busy = p->busy[i];
            p->busiest = i;
        }
    }
    qsort(sorted, p->nsm, sizeof *sorted, cmp_double);
    p->util_min = sorted[0];
    p->util_max = sorted[p->nsm - 1];
    p->util_median = p->nsm % 2 ? sorted[p->nsm / 2] : (sorted[p->nsm / 2 - 1] + sorted[p->nsm / 2]) / 2;
    free(sorted);
    double mean_busy = sum_busy / (double)p->nsm;
    p->imbalance = mean_busy > 0 ? max_busy / mean_busy : 0;
    p->util_total = l->res.active > 0 ? mean_busy / l->res.active : 0;
    p->flags |= AU_F_SM_ROLLUP;
    if (l->ctr.jobs > 0 && fabs(p->sass_jobs - l->ctr.jobs) > 0.005 * l->ctr.jobs)
        p->flags |= AU_F_PASS_MISMATCH;
    qsort(p->instr, p->ninstr, sizeof *p->instr, cmp_instr_busy);
    au_persm_free(l->persm);
    l->persm = p;
    return AU_OK;
}

int au_persm_attach(au_report *rep, const au_table *t, const char *sass_path, const char *cubin_dir,
                    int quiet)
{
    au_sass_data d;
    memset(&d, 0, sizeof d);
    int rc = au_sass_read(sass_path, &d);
    if (rc)
        return rc;
    long long rep_pids[256], sass_pids[256];
    size_t nrep = 0, nsass = 0, attached = 0, mismatched = 0;
    for (size_t i = 0; i < rep->count; ++i)
        pid_ordinal(rep_pids, &nrep, 256, rep->launches[i].pid);
    cubin_ops *cache = NULL;
    size_t ncache = 0;
    for (size_t lo = 0; lo < d.count && rc == AU_OK;) {
        size_t hi = lo + 1;
        while (hi < d.count && d.rows[hi].launch_id == d.rows[lo].launch_id && d.rows[hi].pid == d.rows[lo].pid)
            ++hi;
        int ord = pid_ordinal(sass_pids, &nsass, 256, d.rows[lo].pid);
        au_launch *l = NULL;
        for (size_t i = 0; i < rep->count && !l; ++i)
            if (rep->launches[i].id == d.rows[lo].launch_id && ord >= 0 && (size_t)ord < nrep &&
                rep->launches[i].pid == rep_pids[ord])
                l = &rep->launches[i];
        if (l) {
            char a[256], b[256];
            au_kernel_short(l->kernel, a, sizeof a, sizeof a - 1);
            au_kernel_short(d.rows[lo].kernel, b, sizeof b, sizeof b - 1);
            if (strcmp(a, b) != 0) {
                ++mismatched;
            } else if (!(l->res.flags & AU_F_MISSING)) {
                rc = build(l, t, &d, lo, hi, &cache, &ncache, cubin_dir, &rep->thr);
                attached += rc == AU_OK;
            }
        }
        lo = hi;
    }
    for (size_t i = 0; i < ncache; ++i)
        au_sass_ops_free(&cache[i].ops);
    free(cache);
    au_sass_free(&d);
    if (rc == AU_OK && !quiet && mismatched)
        fprintf(stderr, "%s: warning: %zu launches of the per-SM run ran other kernels than the counters "
                        "run (a non-deterministic program?): left out\n", prog, mismatched);
    if (rc == AU_OK && attached == 0)
        rc = au_set_error(AU_E_NOTFOUND, "%s: no launch of the per-SM run matches a measured launch", sass_path);
    return rc;
}
