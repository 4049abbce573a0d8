/*
 * opcodes.c - atomutil-profile --opcodes (docs/opcodes.md).  The live run's injection library keeps
 * the cubin of every measured kernel in BASE.cubins/ and names it on a "code:" line of the counters
 * file; here each kernel with shared-atomic jobs is disassembled alone (nvdisasm -gi of its symbol
 * index, for source lines; else cuobjdump -sass -fun), and its instructions are attached to its
 * launches before their one evaluation (au_launch_eval prices them by the families of the ATOMS
 * opcodes); the warnings come after the evaluation, which says which launches the code priced.
 * A framework's cubins take seconds to list, so listings are kept in a cache keyed by the cubin's
 * content and the disassembler, and the cubins that still need nvdisasm are listed concurrently.
 * (CUPTI's SASS metrics would count each instruction, but on CUDA 13.0 they count only the first
 * kernel a context launches: tests/device/sass_api_check.cu.)
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

/* The listings parsed so far (listing_for's cache). */
typedef struct {
    listing *v;
    size_t n, cap;
} parsed_set;

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

/* What the attach found for a launch, for the warnings after its evaluation. */
enum {
    CODE_NOT_ASKED = 0, /* its counters cannot want code */
    CODE_ASKED,         /* (while attaching) its counters may want code */
    CODE_NO_LINE,       /* no "code:" line names its kernel, no "graph:" line its row */
    CODE_UNLISTED,      /* its kernel (a graph's kernels) could not be listed */
    CODE_LISTED,        /* its kernel's instructions attached */
    CODE_GRAPH          /* its graph's kernels' instructions attached */
};

typedef struct {
    unsigned char status;
    code_line *k;   /* CODE_LISTED: its kernel */
    size_t listing; /* CODE_LISTED: its kernel's listing, an index into the parsed set */
} launch_code;

/* A graph launch's code: its kernels' instructions together, and its nodes. */
typedef struct {
    au_launch_code code;
    au_instr *instr;
    char *nodes;
} graph_code;

/* One file's kernel code, from the attach (before the evaluation) to the warnings (after it). */
struct au_opcodes {
    lister L;
    const char *counters_path, *cubin_dir, *filter;
    code_line *code; /* the run's code lines */
    size_t ncode;
    const graph_line *graphs;
    size_t ngraphs;
    parsed_set ps;
    launch_code *per; /* per launch of the report */
    size_t nper;
    graph_code *gc; /* room for one per launch */
    size_t ngc;
};

/* The launches whose counters may want code, and the kernels (a graph launch's: the graph's)
 * whose listings they need, marked; then those listings made that cubin_dir lacks: from the cache,
 * else with one nvdisasm run per cubin, the runs concurrent.  AU_OK, or AU_E_NOMEM. */
static int make_listings(au_opcodes *o, const au_report *rep, const au_table *t, au_busy_mode busy)
{
    for (size_t i = 0; i < rep->count; ++i) {
        const au_launch *l = &rep->launches[i];
        if (!au_launch_may_want_code(l, t, busy))
            continue;
        o->per[i].status = CODE_ASKED;
        code_line *k = code_for(o->code, o->ncode, l);
        const graph_line *g = k ? NULL : graph_for(o->graphs, o->ngraphs, l);
        if (k)
            k->want = k->want ? k->want : 1;
        for (size_t m = 0; g && m < g->n; ++m)
            if ((k = code_by_mangled(o->code, o->ncode, g->mangled[m])) != NULL && !k->want)
                k->want = 1;
    }
    return au_op_list_wanted(&o->L, o->cubin_dir, o->code, o->ncode);
}

/* Appends the n instructions v to *all (*nall of them); AU_OK or AU_E_NOMEM. */
static int append_instr(au_instr **all, size_t *nall, const au_instr *v, size_t n)
{
    au_instr *grown = n ? realloc(*all, (*nall + n) * sizeof **all) : *all;
    if (n && !grown)
        return au_set_error(AU_E_NOMEM, "out of memory");
    *all = grown;
    if (n)
        memcpy(*all + *nall, v, n * sizeof *v);
    *nall += n;
    return AU_OK;
}

/* Graph launch l's code: the instructions of all of g's kernels together, and its nodes; a graph
 * none of whose kernels has a listing is unlisted.  AU_OK, or < 0. */
static int attach_graph(au_opcodes *o, const graph_line *g, au_launch *l, launch_code *lc)
{
    char *nodes = NULL;
    size_t nodes_len = 0, nall = 0, listed = 0;
    au_instr *all = NULL;
    int rc = AU_OK;
    for (size_t m = 0; m < g->n && rc == AU_OK; ++m) {
        code_line *gk = code_by_mangled(o->code, o->ncode, g->mangled[m]);
        const listing *gl = gk ? listing_for(&o->L, &o->ps.v, &o->ps.n, &o->ps.cap, o->cubin_dir, gk) : NULL;
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
        rc = append_instr(&all, &nall, v, n);
        free(v);
    }
    if (rc != AU_OK || !listed) {
        lc->status = CODE_UNLISTED;
        free(nodes);
        free(all);
        return rc;
    }
    graph_code *c = &o->gc[o->ngc++];
    *c = (graph_code){{all, nall, nodes, 0}, all, nodes};
    l->code = &c->code;
    lc->status = CODE_GRAPH;
    return AU_OK;
}

/* Launch l's code: its kernel's instructions (read from its listing once per kernel) and the load
 * sites of its CAS loops, attached to l; or why there is none, in lc.  AU_OK, or < 0. */
static int attach_launch(au_opcodes *o, au_launch *l, launch_code *lc)
{
    code_line *k = code_for(o->code, o->ncode, l);
    const graph_line *g = k ? NULL : graph_for(o->graphs, o->ngraphs, l);
    if (g)
        return attach_graph(o, g, l, lc);
    lc->status = CODE_NO_LINE;
    if (!k)
        return AU_OK;
    const listing *ls = listing_for(&o->L, &o->ps.v, &o->ps.n, &o->ps.cap, o->cubin_dir, k);
    /* no listing file at all: unlisted; one with no atomics, or unreadable: said after the
     * evaluation */
    lc->status = CODE_UNLISTED;
    if (!ls || (ls->ops.count == 0 && !ls->len && !ls->unread[0]))
        return AU_OK;
    int rc = AU_OK;
    if (!k->have_instr && (rc = kernel_instructions(&ls->ops, k->mangled, &k->instr, &k->ninstr)) != AU_OK)
        return rc;
    k->have_instr = 1;
    k->lc = (au_launch_code){k->instr, k->ninstr, NULL, 0};
    /* where the kernel's shared loads sit, for the loads of its CAS loops */
    if (!k->have_sites && ls->text) {
        if ((rc = au_sass_load_sites(ls->text, ls->len, k->mangled, &k->sites)) != AU_OK)
            return rc;
        k->have_sites = 1;
    }
    l->sites = k->sites;
    l->code = &k->lc;
    *lc = (launch_code){CODE_LISTED, k, (size_t)(ls - o->ps.v)};
    return AU_OK;
}

int au_opcodes_attach(au_opcodes **out, au_report *rep, const au_table *t, au_busy_mode busy, const char *counters_path,
                      const au_cf_run *run, const char *cubin_dir, unsigned flags, au_opcodes_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    *out = NULL;
    if (run->ncode == 0)
        return au_set_error(AU_E_NOTFOUND, "%s: names no kernel code (made by a live run of atomutil-profile?)",
                            counters_path);
    au_opcodes *o = calloc(1, sizeof *o);
    if (!o)
        return au_set_error(AU_E_NOMEM, "out of memory");
    *out = o;
    o->L.st = stats;
    o->L.quiet = (flags & AU_OPCODES_QUIET) != 0;
    o->L.cache = flags & AU_OPCODES_NO_CACHE ? -1 : 0;
    o->counters_path = counters_path;
    o->cubin_dir = cubin_dir;
    o->filter = run->filter;
    o->ncode = run->ncode;
    o->graphs = run->graphs;
    o->ngraphs = run->ngraphs;
    o->nper = rep->count;
    o->code = code_lines(run);
    o->per = calloc(rep->count ? rep->count : 1, sizeof *o->per);
    o->gc = run->ngraphs ? calloc(rep->count ? rep->count : 1, sizeof *o->gc) : NULL;
    if (!o->code || !o->per || (run->ngraphs && !o->gc))
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_op_find_tool("nvdisasm", o->L.nvdisasm, sizeof o->L.nvdisasm);
    au_op_find_tool("cuobjdump", o->L.cuobjdump, sizeof o->L.cuobjdump);
    if (o->L.nvdisasm[0])
        au_op_tool_identity(o->L.nvdisasm, o->L.nvdisasm_id, sizeof o->L.nvdisasm_id);
    int rc = make_listings(o, rep, t, busy);
    for (size_t i = 0; i < rep->count && rc == AU_OK; ++i)
        if (o->per[i].status == CODE_ASKED)
            rc = attach_launch(o, &rep->launches[i], &o->per[i]);
    return rc;
}

/* Launches with shared-atomic jobs whose kernel no "code:" line names (the first of them: first):
 * one warning, which says why where -k's module filter left modules out. */
static void warn_no_code(const au_opcodes *o, size_t nocode, const au_launch *first, const char *family)
{
    /* no code: line names the kernel: its module's image was not seen when it loaded */
    const char *fn;
    size_t fl = au_kernel_function(first->kernel, &fn);
    char raw[200], name[600];
    snprintf(raw, sizeof raw, "%.*s", (int)(fl < sizeof raw ? fl : sizeof raw - 1), fn);
    au_text_fit(raw, name, sizeof name, 0, 0);
    char why[300] = "";
    if (*o->filter) { /* the text comes from the file: shown as names are */
        char shown[200];
        au_text_fit(o->filter, shown, sizeof shown, 0, 0);
        snprintf(why, sizeof why, ", as with -k only the modules that name '%s' are kept", shown);
    }
    fprintf(stderr,
            "%s: warning: %zu launches with shared-atomic jobs have no kernel code in %s (the first: "
            "launch %lld, %s; no 'code:' line names its kernel: its module was not kept when it "
            "loaded%s): priced as '%s'\n",
            prog, nocode, o->counters_path, first->id, name, why, family);
}

void au_opcodes_report(au_opcodes *o, const au_report *rep)
{
    if (!o)
        return;
    fputs(o->L.note, stderr); /* the listing cache's, said when the listings were made */
    size_t nocode = 0, unlisted = 0;
    const au_launch *nocode_first = NULL; /* named in the warning: the first kernel without code */
    for (size_t i = 0; i < rep->count && i < o->nper; ++i) {
        const au_launch *l = &rep->launches[i];
        const launch_code *lc = &o->per[i];
        /* the warnings count launches with jobs: one without keeps flag unpriced_wavefronts */
        if (!au_launch_wants_code(l))
            continue;
        if (lc->status == CODE_NO_LINE && l->ctr.jobs > 0 && !nocode++)
            nocode_first = l;
        unlisted += lc->status == CODE_UNLISTED && l->ctr.jobs > 0;
        if (lc->status == CODE_LISTED && lc->k->ninstr == 0 && l->ctr.jobs > 0 && !lc->k->warned && !o->L.quiet) {
            lc->k->warned = 1;
            warn_no_atomics(&o->ps.v[lc->listing], lc->k, l, rep->family);
        }
    }
    if (!o->L.quiet && nocode)
        warn_no_code(o, nocode, nocode_first, rep->family);
    if (!o->L.quiet && unlisted)
        fprintf(stderr,
                "%s: warning: %zu launches with shared-atomic jobs: their kernel could not be listed from "
                "%s (nvdisasm and cuobjdump of the CUDA toolkit missing?): priced as '%s'\n",
                prog, unlisted, o->cubin_dir, rep->family);
}

void au_opcodes_free(au_opcodes *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->ps.n; ++i) {
        au_sass_ops_free(&o->ps.v[i].ops);
        free(o->ps.v[i].text);
    }
    free(o->ps.v);
    for (size_t j = 0; o->code && j < o->ncode; ++j)
        free(o->code[j].instr);
    free(o->code);
    for (size_t i = 0; i < o->ngc; ++i) {
        free(o->gc[i].instr);
        free(o->gc[i].nodes);
    }
    free(o->gc);
    free(o->per);
    free(o);
}
