/*
 * opcodes.c - atomutil-profile --opcodes (docs/opcodes.md).  The live run's injection library keeps
 * the cubin of every measured kernel in BASE.cubins/ and names it on a "code:" line of the counters
 * file; here each kernel with shared-atomic jobs is disassembled alone (nvdisasm -gi of its symbol
 * index, for source lines; else cuobjdump -sass -fun), and au_launch_apply_opcodes prices the
 * launch by the families of the kernel's ATOMS opcodes.  A framework's cubins take seconds to list,
 * so listings are kept in a cache keyed by the cubin's content and the disassembler, and the cubins
 * that still need nvdisasm are listed concurrently.  (CUPTI's SASS metrics would count each
 * instruction, but on CUDA 13.0 they count only the first kernel a context launches:
 * tests/device/sass_api_check.cu.)
 */
#define _XOPEN_SOURCE 700 /* realpath, mkstemp */
#include "opcodes_internal.h"

#include "run.h"

#include "atomutil/util.h"
#include "sass_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *prog = "atomutil-profile";

typedef struct {
    char path[8192];
    au_sass_ops ops;
    char *text; /* the listing files' text, for the load sites of CAS loops */
    size_t len;
    char unread[512]; /* why the first of its files that could not be read was not: "" if none */
} listing;

/* Appends the parse of one listing file to l's ops (a file that does not parse adds nothing) and
 * its text to l's text. */
static void add_listing(listing *l, const char *path)
{
    au_sass_ops *ops = &l->ops;
    char *buf;
    size_t len;
    if (au_op_read_code_file(path, &buf, &len) != AU_OK) {
        if (!l->unread[0])
            au_strlcpy(l->unread, au_last_error(), sizeof l->unread);
        return;
    }
    /* each file on lines of its own: a file need not end with a line end */
    char *nt = realloc(l->text, l->len + len + 2);
    if (nt) {
        memcpy(nt + l->len, buf, len);
        l->len += len;
        nt[l->len++] = '\n';
        nt[l->len] = '\0';
        l->text = nt;
    }
    au_sass_ops one;
    memset(&one, 0, sizeof one);
    if (au_sass_ops_parse(buf, len, &one) == AU_OK && one.count) {
        au_sass_op *nv = realloc(ops->v, (ops->count + one.count) * sizeof *nv);
        if (nv) {
            memcpy(nv + ops->count, one.v, one.count * sizeof *nv);
            ops->v = nv;
            ops->count += one.count;
            ops->cap = ops->count;
            free(one.v); /* the ops' strings moved to ops */
            one.v = NULL;
            one.count = 0;
        }
    }
    au_sass_ops_free(&one);
    free(buf);
}

/* The parsed listing that holds k's kernel: with its cubin, the function's <crc>-<symbol>.sass
 * (made now if missing); without it (an --import of kept listings), every <crc>-*.sass of dir
 * together.  NULL if none can be had. */
static const listing *listing_for(lister *L, listing **parsed, size_t *n, size_t *cap, const char *dir,
                                  const code_line *k)
{
    char path[8192];
    if (k->have_cubin) {
        if (k->sym < 0)
            return NULL;
        au_op_sass_path(path, sizeof path, dir, k);
        if (access(path, R_OK) != 0 && au_op_list_function(L, dir, k, path) != 0)
            return NULL;
    } else {
        snprintf(path, sizeof path, "%s/%u-*.sass", dir, k->crc);
    }
    for (size_t i = 0; i < *n; ++i)
        if (strcmp((*parsed)[i].path, path) == 0)
            return &(*parsed)[i];
    if (au_grow(parsed, cap, *n, sizeof **parsed, 8) != 0)
        return NULL;
    listing *l = &(*parsed)[(*n)++];
    memset(l, 0, sizeof *l);
    au_strlcpy(l->path, path, sizeof l->path);
    if (k->have_cubin) {
        add_listing(l, path);
        return l;
    }
    DIR *d = opendir(dir);
    if (!d)
        return l;
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "%u-", k->crc);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)pl) != 0 || !au_op_own_file(e->d_name))
            continue;
        char one[8192];
        snprintf(one, sizeof one, "%s/%s", dir, e->d_name);
        add_listing(l, one);
    }
    closedir(d);
    return l;
}

/* A kernel with shared-atomic jobs whose listing has no atomic instruction of it: says whether the
 * listing holds the kernel at all (else it is unreadable or another kernel's, and which of its
 * files could not be read) or holds it without atomics (atomics in a called function). */
static void warn_no_atomics(const listing *ls, const code_line *k, const au_launch *l, const char *family)
{
    /* nvdisasm's ".text.NAME:" header, or cuobjdump's "Function : NAME" */
    size_t hl = strlen(k->mangled) + 12;
    char *head = malloc(hl);
    int holds = ls->text && (au_op_find_section(ls->text, ls->len, k->mangled) ||
                             (head && snprintf(head, hl, "Function : %s", k->mangled) > 0 && strstr(ls->text, head)));
    free(head);
    if (holds)
        fprintf(stderr,
                "%s: warning: %s: the listing %s has no shared-atomic instruction of kernel %s, though the "
                "counters show %.0f jobs per SM (atomics in a called, not inlined function?): priced as '%s'\n",
                prog, k->demangled, ls->path, k->mangled, l->res.jobs, family);
    else
        fprintf(stderr,
                "%s: warning: %s: the listing %s does not hold kernel %s, though the counters show %.0f "
                "shared-atomic jobs per SM (listing unreadable or not this kernel's%s%s): priced as '%s'\n",
                prog, k->demangled, ls->path, k->mangled, l->res.jobs, ls->unread[0] ? ": " : "", ls->unread, family);
}

/* A graph launch's row (process, launch id) and its kernels' mangled names ("graph:" lines). */
typedef au_cf_graph graph_line;

/* The kernels of run's "code:" lines, with room for what their listings need; NULL out of memory. */
static code_line *code_lines(const au_cf_run *run)
{
    code_line *code = calloc(run->ncode ? run->ncode : 1, sizeof *code);
    for (size_t k = 0; code && k < run->ncode; ++k) {
        code[k].demangled = run->code[k].demangled;
        code[k].mangled = run->code[k].mangled;
        code[k].crc = run->code[k].crc;
        code[k].sym = -1;
    }
    return code;
}

/* The kernel's instructions from its listing (ATOMS and ATOM; the model keeps ATOMS). */
static int kernel_instructions(const au_sass_ops *ops, const char *mangled, au_instr **out, size_t *nout)
{
    au_instr *v = calloc(ops->count ? ops->count : 1, sizeof *v);
    if (!v)
        return au_set_error(AU_E_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < ops->count; ++i) {
        const au_sass_op *op = &ops->v[i];
        if (strcmp(op->function, mangled) != 0)
            continue;
        au_strlcpy(v[n].function, op->function, sizeof v[n].function);
        v[n].pc = op->pc;
        au_strlcpy(v[n].opcode, op->opcode, sizeof v[n].opcode);
        au_strlcpy(v[n].source, op->source, sizeof v[n].source);
        ++n;
    }
    *out = v;
    *nout = n;
    return AU_OK;
}

int au_opcodes_have_code(const char *cubin_dir)
{
    DIR *d = opendir(cubin_dir);
    if (!d)
        return 0;
    closedir(d);
    return 1;
}

/* The code line of a launch's kernel, NULL if none. */
static code_line *code_for(code_line *code, size_t ncode, const au_launch *l)
{
    for (size_t j = 0; j < ncode && l->kernel; ++j)
        if (strcmp(code[j].demangled, l->kernel) == 0)
            return &code[j];
    return NULL;
}

/* Whether the kernel's code prices launch l: it has shared-atomic jobs, or wavefronts without jobs
 * (flag unpriced_wavefronts) that generic atomics of the code may explain (docs/opcodes.md,
 * "Generic atomics"); not a launch without U. */
static int wants_code(const au_launch *l)
{
    return !(l->res.flags & AU_F_UNUSABLE) && (l->ctr.jobs > 0 || (l->res.flags & AU_F_UNPRICED_WAVEFRONTS));
}

static const graph_line *graph_for(const graph_line *g, size_t ng, const au_launch *l)
{
    for (size_t i = 0; i < ng; ++i)
        if (g[i].id == l->id && (l->pid < 0 || g[i].pid == l->pid))
            return &g[i];
    return NULL;
}

static code_line *code_by_mangled(code_line *code, size_t ncode, const char *mangled)
{
    for (size_t j = 0; j < ncode; ++j)
        if (strcmp(code[j].mangled, mangled) == 0)
            return &code[j];
    return NULL;
}

/* Makes the listings the launches of rep need that cubin_dir lacks: from the cache, else with one
 * nvdisasm run per cubin, the runs concurrent.  AU_OK, or AU_E_NOMEM. */
static int make_listings(lister *L, const au_report *rep, const char *cubin_dir, code_line *code, size_t ncode)
{
    for (size_t i = 0; i < rep->count; ++i) {
        const au_launch *l = &rep->launches[i];
        code_line *k;
        if (wants_code(l) && (k = code_for(code, ncode, l)) != NULL && !k->want)
            k->want = 1;
    }
    return au_op_list_wanted(L, cubin_dir, code, ncode);
}

/* The listings parsed so far (listing_for's cache). */
typedef struct {
    listing *v;
    size_t n, cap;
} parsed_set;

/* Prices graph launch l by the instructions of all of g's kernels together; a graph none of whose
 * kernels has a listing counts in *unlisted.  AU_OK, or < 0. */
/* Appends "NAME (FAMILIES)" of one graph kernel to *s (families of its instructions v[0..n), "-"
 * without shared atomics, "?" without its code): the graph row lists its kernel nodes. */
static void add_node(char **s, size_t *len, const char *name, const au_instr *v, size_t n, int listed)
{
    const char *fn;
    size_t fl = au_kernel_function(name, &fn);
    char fams[160] = "";
    for (size_t i = 0; i < n; ++i) {
        const char *f = au_opcode_family(v[i].opcode);
        f = f ? f : v[i].opcode;
        size_t used = strlen(fams);
        char item[40];
        snprintf(item, sizeof item, "%s%s", used ? " " : "", f);
        if (!strstr(fams, f) && used + strlen(item) < sizeof fams)
            strcat(fams, item);
    }
    size_t need = *len + fl + strlen(fams) + 8;
    char *grown = realloc(*s, need);
    if (!grown)
        return;
    *s = grown;
    *len += (size_t)snprintf(*s + *len, need - *len, "%s%.*s (%s)", *len ? ", " : "", (int)fl, fn,
                             !listed   ? "?"
                             : fams[0] ? fams
                                       : "-");
}

static int price_graph_launch(lister *L, parsed_set *ps, const char *cubin_dir, code_line *code, size_t ncode,
                              const graph_line *g, au_report *rep, au_launch *l, const au_table *t, size_t *unlisted)
{
    char *nodes = NULL;
    size_t nodes_len = 0;
    au_instr *all = NULL;
    size_t nall = 0, listed = 0;
    int rc = AU_OK;
    for (size_t m = 0; m < g->n && rc == AU_OK; ++m) {
        code_line *gk = code_by_mangled(code, ncode, g->mangled[m]);
        const listing *gl = gk ? listing_for(L, &ps->v, &ps->n, &ps->cap, cubin_dir, gk) : NULL;
        au_instr *v = NULL;
        size_t n = 0;
        if (!gl || (gl->ops.count == 0 && !gl->len)) {
            add_node(&nodes, &nodes_len, gk ? gk->demangled : g->mangled[m], NULL, 0, 0);
            continue;
        }
        if (gl->ops.count == 0) { /* listed, no shared atomics */
            add_node(&nodes, &nodes_len, gk->demangled, NULL, 0, 1);
            continue;
        }
        ++listed;
        if ((rc = kernel_instructions(&gl->ops, gk->mangled, &v, &n)) != AU_OK)
            break;
        add_node(&nodes, &nodes_len, gk->demangled, v, n, 1);
        au_instr *grown = n ? realloc(all, (nall + n) * sizeof *all) : all;
        if (n && !grown) {
            free(v);
            rc = au_set_error(AU_E_NOMEM, "out of memory");
            break;
        }
        all = grown;
        if (n)
            memcpy(all + nall, v, n * sizeof *v);
        nall += n;
        free(v);
    }
    if (rc == AU_OK && listed)
        rc = au_launch_apply_opcodes(l, t, all, nall, &rep->thr, rep->busy);
    else if (rc == AU_OK)
        *unlisted += l->ctr.jobs > 0;
    if (rc == AU_OK && l->ops && nodes) {
        l->ops->nodes = nodes;
        nodes = NULL;
    }
    free(nodes);
    free(all);
    return rc;
}

/* A graph launch's row needs the listings of the graph's kernels: marks them wanted. */
static void want_graph_kernels(const au_report *rep, code_line *code, size_t ncode, const graph_line *graphs,
                               size_t ngraphs)
{
    for (size_t i = 0; i < rep->count && ngraphs; ++i) {
        const au_launch *l = &rep->launches[i];
        const graph_line *g;
        if (!wants_code(l) || code_for(code, ncode, l) || !(g = graph_for(graphs, ngraphs, l)))
            continue;
        for (size_t m = 0; m < g->n; ++m) {
            code_line *k = code_by_mangled(code, ncode, g->mangled[m]);
            if (k && !k->want)
                k->want = 1;
        }
    }
}

int au_opcodes_attach(au_report *rep, const au_table *t, const char *counters_path, const au_cf_run *run,
                      const char *cubin_dir, unsigned flags, au_opcodes_stats *stats)
{
    au_opcodes_stats unused;
    lister L;
    memset(&L, 0, sizeof L);
    L.st = stats ? stats : &unused;
    memset(L.st, 0, sizeof *L.st);
    L.quiet = (flags & AU_OPCODES_QUIET) != 0;
    L.cache = flags & AU_OPCODES_NO_CACHE ? -1 : 0;
    const graph_line *graphs = run->graphs;
    size_t ncode = run->ncode, ngraphs = run->ngraphs;
    const char *filter = run->filter;
    if (ncode == 0)
        return au_set_error(AU_E_NOTFOUND, "%s: names no kernel code (made by a live run of atomutil-profile?)",
                            counters_path);
    code_line *code = code_lines(run);
    if (!code)
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_op_find_tool("nvdisasm", L.nvdisasm, sizeof L.nvdisasm);
    au_op_find_tool("cuobjdump", L.cuobjdump, sizeof L.cuobjdump);
    if (L.nvdisasm[0])
        au_op_tool_identity(L.nvdisasm, L.nvdisasm_id, sizeof L.nvdisasm_id);
    want_graph_kernels(rep, code, ncode, graphs, ngraphs);
    int rc = make_listings(&L, rep, cubin_dir, code, ncode);
    parsed_set ps = {NULL, 0, 0};
    size_t nocode = 0, unlisted = 0;
    const au_launch *nocode_first = NULL; /* named in the warning: the first kernel without code */
    for (size_t i = 0; i < rep->count && rc == AU_OK; ++i) {
        au_launch *l = &rep->launches[i];
        if (!wants_code(l))
            continue; /* no shared-atomic jobs or wavefronts to price: no listing needed */
        code_line *k = code_for(code, ncode, l);
        const graph_line *g = k ? NULL : graph_for(graphs, ngraphs, l);
        if (g) {
            rc = price_graph_launch(&L, &ps, cubin_dir, code, ncode, g, rep, l, t, &unlisted);
            continue;
        }
        /* the warnings count launches with jobs: one without keeps flag unpriced_wavefronts */
        if (!k) {
            if (l->ctr.jobs > 0 && !nocode++)
                nocode_first = l;
            continue;
        }
        const listing *ls = listing_for(&L, &ps.v, &ps.n, &ps.cap, cubin_dir, k);
        const au_sass_ops *ops = ls ? &ls->ops : NULL;
        /* no listing file at all: unlisted; one with no atomics, or unreadable: said below */
        if (!ops || (ops->count == 0 && !ls->len && !ls->unread[0])) {
            unlisted += l->ctr.jobs > 0;
            continue;
        }
        au_instr *v = NULL;
        size_t n = 0;
        if ((rc = kernel_instructions(ops, k->mangled, &v, &n)) != AU_OK)
            break;
        if (n == 0 && l->ctr.jobs > 0 && !k->warned && !L.quiet) {
            k->warned = 1;
            warn_no_atomics(ls, k, l, rep->family);
        }
        /* where the kernel's shared loads sit, for the loads of its CAS loops */
        if (!k->have_sites && ls->text) {
            if ((rc = au_sass_load_sites(ls->text, ls->len, k->mangled, &k->sites)) != AU_OK) {
                free(v);
                break;
            }
            k->have_sites = 1;
        }
        l->sites = k->sites;
        rc = au_launch_apply_opcodes(l, t, v, n, &rep->thr, rep->busy);
        free(v);
    }
    for (size_t i = 0; i < ps.n; ++i) {
        au_sass_ops_free(&ps.v[i].ops);
        free(ps.v[i].text);
    }
    free(ps.v);
    free(code);
    if (rc)
        return rc;
    if (!L.quiet && nocode) {
        /* no code: line names the kernel: its module's image was not seen when it loaded */
        const char *fn;
        size_t fl = au_kernel_function(nocode_first->kernel, &fn);
        char raw[200], name[600];
        snprintf(raw, sizeof raw, "%.*s", (int)(fl < sizeof raw ? fl : sizeof raw - 1), fn);
        au_text_fit(raw, name, sizeof name, 0, 0);
        char why[300] = "";
        if (*filter) { /* the text comes from the file: shown as names are */
            char shown[200];
            au_text_fit(filter, shown, sizeof shown, 0, 0);
            snprintf(why, sizeof why, ", as with -k only the modules that name '%s' are kept", shown);
        }
        fprintf(stderr,
                "%s: warning: %zu launches with shared-atomic jobs have no kernel code in %s (the first: "
                "launch %lld, %s; no 'code:' line names its kernel: its module was not kept when it "
                "loaded%s): priced as '%s'\n",
                prog, nocode, counters_path, nocode_first->id, name, why, rep->family);
    }
    if (!L.quiet && unlisted)
        fprintf(stderr,
                "%s: warning: %zu launches with shared-atomic jobs: their kernel could not be listed from "
                "%s (nvdisasm and cuobjdump of the CUDA toolkit missing?): priced as '%s'\n",
                prog, unlisted, cubin_dir, rep->family);
    return AU_OK;
}
