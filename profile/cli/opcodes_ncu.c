/*
 * opcodes_ncu.c - the code of an Nsight Compute report's launches (opcodes.h): not a listing of
 * its cubins, which a report does not keep, but the executions of each atomic opcode that ncu
 * counted in each launch (a report made with --set full).  They price the jobs as a live run's
 * listing does, and as atomutil's ncu rule does from the same report's per-instruction counts.
 */
#include "opcodes.h"

#include "ncu_opcodes.h"
#include "ncu_report.h"

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
    free(row);
    au_ncu_opcodes_free(&page);
    *out = o;
    return AU_OK;
}
