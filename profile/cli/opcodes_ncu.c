/*
 * opcodes_ncu.c - the code of an Nsight Compute report's launches (opcodes.h): not a listing of
 * its cubins, which a report does not keep, but the executions of each atomic opcode that ncu
 * counted in each launch (a report made with --set full).  They price the jobs as a live run's
 * listing does, and as atomutil's ncu rule does from the same report's per-instruction counts.
 */
#include "opcodes.h"

#include "ncu_opcodes.h"
#include "ncu_report.h"
#include "ncu_source.h"

#include "atomutil/report.h"
#include "atomutil/util.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_MAX ((size_t)1 << 30)

struct au_opcodes_ncu {
    au_instr *instr;    /* every attached launch's instructions */
    au_launch_code *lc; /* one per launch of the report it was attached to */
};

void au_opcodes_ncu_free(au_opcodes_ncu *o)
{
    if (!o)
        return;
    free(o->instr);
    free(o->lc);
    free(o);
}

/* Whether kernel names a and b, of the source page and the raw page, name one function: the raw
 * page drops namespaces and prints template arguments otherwise ("void at::cuda::k<long, (int)1>"
 * against "void k<long, 1>"), so their function names are compared (au_kernel_function). */
static int same_function(const char *a, const char *b)
{
    const char *fa, *fb;
    size_t la = au_kernel_function(a, &fa), lb = au_kernel_function(b, &fb);
    return la && la == lb && memcmp(fa, fb, la) == 0;
}

/* The CAS loops' entries of the report's launches (AU_C_LOOP_ENTRIES), from its source page
 * (ncu_source.h), where a launch's opcodes hold a CAS loop.  The page comes in the raw page's order;
 * ncu 2025.3 may print each launch's twice in a row.  Any doubt (ncu fails, a report without
 * source counters, pages that do not pair with the launches by function name) leaves the launches
 * without entries: their CAS loops then get no pass cure (docs/advisor.md). */
static void attach_entries(au_report *rep, const char *path)
{
    char *buf;
    size_t len;
    if (au_ncu_report_source(path, PAGE_MAX, &buf, &len) != AU_OK)
        return;
    au_ncu_source page;
    int st = au_ncu_source_parse(path, buf, len, &page);
    free(buf);
    if (st != AU_OK)
        return;
    size_t step = page.n == rep->count ? 1 : page.n == 2 * rep->count ? 2 : 0, ok = step != 0;
    for (size_t i = 0; ok && i < rep->count; ++i)
        for (size_t k = 0; k < step; ++k)
            ok &= rep->launches[i].kernel && same_function(page.pages[i * step + k].kernel, rep->launches[i].kernel);
    for (size_t i = 0; ok && i < rep->count; ++i) {
        const au_ncu_srcpage *pg = &page.pages[i * step];
        if (pg->loops && pg->entries > 0) {
            rep->launches[i].ctr.loop_entries = pg->entries;
            rep->launches[i].ctr.have |= AU_C_LOOP_ENTRIES;
        }
    }
    au_ncu_source_free(&page);
}

int au_opcodes_ncu_attach(au_opcodes_ncu **out, au_report *rep, const char *path, int report, size_t *attached)
{
    *out = NULL;
    *attached = 0;
    char *buf;
    size_t len;
    int st = report ? au_ncu_report_opcodes(path, PAGE_MAX, &buf, &len) : au_read_file(path, PAGE_MAX, &buf, &len);
    if (st != AU_OK)
        return st;
    au_ncu_opcodes page;
    st = au_ncu_opcodes_parse(path, buf, len, &page);
    free(buf);
    if (st != AU_OK)
        return st;
    const au_ncu_oprow **row = calloc(rep->count ? rep->count : 1, sizeof *row);
    au_opcodes_ncu *o = calloc(1, sizeof *o);
    size_t total = 0, hint = 0;
    for (size_t i = 0; row && i < rep->count; ++i) {
        row[i] = au_ncu_opcodes_find(&page, rep->launches[i].id, rep->launches[i].pid, &hint);
        if (row[i] && (!row[i]->instances || !row[i]->n))
            row[i] = NULL; /* no counts, or no atomic opcode: priced as --family */
        total += row[i] ? row[i]->n : 0;
    }
    if (o && row) {
        o->instr = calloc(total ? total : 1, sizeof *o->instr);
        o->lc = calloc(rep->count ? rep->count : 1, sizeof *o->lc);
    }
    if (!row || !o || !o->instr || !o->lc) {
        free(row);
        au_opcodes_ncu_free(o);
        au_ncu_opcodes_free(&page);
        return au_set_error(AU_E_NOMEM, "out of memory");
    }
    for (size_t i = 0, j = 0; i < rep->count; ++i) {
        if (!row[i])
            continue;
        au_instr *in = o->instr + j;
        for (size_t k = 0; k < row[i]->n; ++k) {
            au_strlcpy(in[k].opcode, row[i]->ops[k].opcode, sizeof in[k].opcode);
            in[k].pc = (unsigned)k;
            in[k].jobs = row[i]->ops[k].executed;
        }
        o->lc[i] = (au_launch_code){in, row[i]->n, NULL, 1};
        rep->launches[i].code = &o->lc[i]; /* read once, by the launch's evaluation */
        j += row[i]->n;
        ++*attached;
    }
    int loops = 0;
    for (size_t i = 0; i < rep->count; ++i)
        for (size_t k = 0; row[i] && k < row[i]->n; ++k)
            loops |= au_family_kind_of(au_opcode_family(row[i]->ops[k].opcode)) == AU_KIND_CAS_LOOP;
    free(row);
    au_ncu_opcodes_free(&page);
    if (report && loops)
        attach_entries(rep, path);
    *out = o;
    return AU_OK;
}
