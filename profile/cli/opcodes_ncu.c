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
 * (ncu_source.h), where a launch's opcodes hold a CAS loop (loop[i]).  The page comes in the raw
 * page's order; ncu 2025.3 may print each launch's twice in a row.  Any doubt leaves the launches
 * without entries: their CAS loops then get no pass cure (docs/advisor.md).  A report without
 * source counters (ncu fails on the page, or the page lacks its columns) is the usual case and
 * says nothing; a page that is there but gives no entries (its launches do not pair with the
 * report's by function name, or a loop it holds cannot be read) writes why into note. */
static void attach_entries(au_report *rep, const char *path, const unsigned char *loop, char *note, size_t size)
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
    size_t unread = 0, first = 0;
    for (size_t i = 0; ok && i < rep->count; ++i) {
        const au_ncu_srcpage *pg = &page.pages[i * step];
        if (pg->loops && pg->entries > 0) {
            rep->launches[i].ctr.loop_entries = pg->entries;
            rep->launches[i].ctr.have |= AU_C_LOOP_ENTRIES;
        } else if (loop[i] && !unread++) {
            first = i;
        }
    }
    if (!ok && page.n)
        snprintf(note, size,
                 "%s: its source page's %zu launches do not pair with its %zu by function name, so its CAS loops "
                 "get no entries and no pass cure",
                 path, page.n, rep->count);
    else if (unread)
        snprintf(note, size,
                 "%s: its source page gives no CAS-loop entries for %zu launch%s (the first: ID %lld), whose "
                 "loops then get no pass cure",
                 path, unread, unread == 1 ? "" : "es", rep->launches[first].id);
    au_ncu_source_free(&page);
}

int au_opcodes_ncu_attach(au_opcodes_ncu **out, au_report *rep, const char *path, int report, size_t *attached,
                          char *note, size_t note_size)
{
    *out = NULL;
    if (note_size)
        note[0] = '\0';
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
    unsigned char *loop = calloc(rep->count ? rep->count : 1, 1); /* a launch's opcodes hold a CAS loop */
    for (size_t i = 0; i < rep->count; ++i)
        for (size_t k = 0; row[i] && k < row[i]->n; ++k)
            if (au_family_kind_of(au_opcode_family(row[i]->ops[k].opcode)) == AU_KIND_CAS_LOOP &&
                row[i]->ops[k].executed > 0) {
                loops = 1;
                if (loop)
                    loop[i] = 1;
            }
    free(row);
    au_ncu_opcodes_free(&page);
    if (report && loops && loop)
        attach_entries(rep, path, loop, note, note_size);
    free(loop);
    *out = o;
    return AU_OK;
}
