/*
 * ncu_source.c - the CAS loops' entries of each launch of an Nsight Compute report's source page
 * (ncu_source.h).  ncu's output is read as untrusted input: a page whose loops cannot all be read
 * gives no entries (-1), never wrong ones.
 */
#include "ncu_source.h"

#include "ncu_import.h"

#include "atomutil/csvline.h"
#include "atomutil/model.h"
#include "atomutil/util.h"

#include <stdlib.h>
#include <string.h>

/* Instructions after a CAS within which its loop's backward branch must come, and before it
 * within which the loop's head must be (the compiler's loops are a load, the new value, the CAS,
 * a test and the branch; the bounds keep the reading linear). */
#define LOOP_TAIL 6
#define LOOP_HEAD 16

/* One instruction of a page. */
typedef struct {
    unsigned long long addr, target; /* target: a branch's (0: not a branch) */
    double executed;                 /* < 0: did not parse */
    int cas;                         /* an ATOMS.CAST.SPIN */
} insn;

/* The branch target of SASS text s ("@!P0  BRA 0x7f50ef7c8080"): its last 0x number; 0 if s is
 * not a BRA. */
static unsigned long long branch_target(const char *s)
{
    const char *b = strstr(s, "BRA");
    if (!b || (b > s && b[-1] != ' ') || (b[3] != ' ' && b[3] != '.'))
        return 0;
    const char *x = NULL;
    for (const char *p = strstr(b, "0x"); p; p = strstr(p + 2, "0x"))
        x = p;
    return x ? strtoull(x, NULL, 16) : 0;
}

/* The entries of the page's CAS loops into pg (insns in address order). */
static void page_entries(au_ncu_srcpage *pg, const insn *in, size_t n)
{
    pg->loops = 0;
    pg->entries = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!in[i].cas)
            continue;
        size_t j = i + 1;
        for (; j < n && j <= i + LOOP_TAIL; ++j)
            if (in[j].target && in[j].target <= in[i].addr)
                break;
        if (j >= n || j > i + LOOP_TAIL)
            continue; /* no branch back: not a loop (a CAS whose result is tested elsewhere) */
        size_t h = i + 1;
        while (h-- > 0 && i - h < LOOP_HEAD && in[h].addr != in[j].target)
            ;
        ++pg->loops;
        if (h == (size_t)-1 || i - h >= LOOP_HEAD || h == 0 || in[h - 1].executed < 0) {
            pg->entries = -1; /* the head or what comes before it is not on the page */
            return;
        }
        pg->entries += in[h - 1].executed;
    }
}

/* One instruction's line into in[*n] (growing it): AU_OK or AU_E_NOMEM. */
static int add_insn(insn **in, size_t *n, size_t *cap, unsigned long long addr, const char *src, const char *ex)
{
    if (*n == *cap) {
        insn *ip = realloc(*in, (*cap = *cap ? 2 * *cap : 256) * sizeof *ip);
        if (!ip)
            return au_set_error(AU_E_NOMEM, "out of memory");
        *in = ip;
    }
    double v;
    insn *it = &(*in)[(*n)++];
    it->addr = addr;
    it->target = branch_target(src);
    it->executed = au_ncu_parse_value(ex, &v) == AU_OK && v >= 0 ? v : -1;
    it->cas = strstr(src, "ATOMS.CAST.SPIN") != NULL;
    return AU_OK;
}

void au_ncu_source_free(au_ncu_source *o)
{
    for (size_t i = 0; o && i < o->n; ++i)
        free(o->pages[i].kernel);
    if (o) {
        free(o->pages);
        memset(o, 0, sizeof *o);
    }
}

int au_ncu_source_parse(const char *name, const char *buf, size_t len, au_ncu_source *out)
{
    memset(out, 0, sizeof *out);
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_csv_wide fs = {.max = 4096};
    int c_addr = -1, c_src = -1, c_ex = -1, rc = AU_OK;
    size_t cap = 0, ni = 0, icap = 0;
    insn *in = NULL;
    long lineno = 0;
    au_ncu_srcpage *cur = NULL;
    const char *s = buf;
    while ((rc = au_ncu_next_fields(&p, &s, buf + len, &fs, name, &lineno)) == 1) {
        if (fs.n >= 2 && strcmp(fs.f[0], "Kernel Name") == 0) {
            if (cur) /* the page before is complete */
                page_entries(cur, in, ni);
            if (out->n == cap) {
                au_ncu_srcpage *pg = realloc(out->pages, (cap = cap ? 2 * cap : 64) * sizeof *pg);
                if (!pg) {
                    rc = au_set_error(AU_E_NOMEM, "out of memory");
                    break;
                }
                out->pages = pg;
            }
            cur = &out->pages[out->n++];
            memset(cur, 0, sizeof *cur);
            if (!(cur->kernel = strdup(fs.f[1]))) {
                rc = au_set_error(AU_E_NOMEM, "out of memory");
                break;
            }
            ni = 0;
            c_addr = c_src = c_ex = -1;
        } else if (cur && fs.n && strcmp(fs.f[0], "Address") == 0) {
            c_addr = 0;
            c_src = au_ncu_column(&fs, "Source");
            c_ex = au_ncu_column(&fs, "Instructions Executed");
            if (c_src < 0 || c_ex < 0) {
                rc = au_set_error(AU_E_PARSE, "%s:%ld: no column 'Source' or 'Instructions Executed'", name, lineno);
                break;
            }
        } else if (cur && c_addr == 0 && fs.n > c_ex && fs.n > c_src) {
            char *x;
            unsigned long long addr = strtoull(fs.f[0], &x, 16);
            if (x != fs.f[0] && !*x && (rc = add_insn(&in, &ni, &icap, addr, fs.f[c_src], fs.f[c_ex])) != AU_OK)
                break;
        }
        au_csv_wide_clear(&fs);
    }
    if (rc == AU_OK && cur)
        page_entries(cur, in, ni);
    free(in);
    au_csv_wide_free(&fs);
    csv_free(&p);
    if (rc != AU_OK)
        au_ncu_source_free(out);
    return rc;
}
