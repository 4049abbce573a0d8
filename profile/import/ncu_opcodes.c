/*
 * ncu_opcodes.c - the per-opcode executions of a report's launches (ncu_opcodes.h).  ncu's output
 * is read as untrusted input: a cell that does not parse gives no opcodes, never a wrong count.
 */
#include "ncu_opcodes.h"

#include "ncu_import.h"

#include "atomutil/csvline.h"
#include "atomutil/model.h"
#include "atomutil/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The raw page's columns: "ID", "Process ID", and the metric's. */
#define MAX_COLS 4096

/* The count in s[0..n) ("524,288", read as every value of ncu's: au_ncu_parse_value): 0 and *v
 * set, or -1. */
static int count_of(const char *s, size_t n, double *v)
{
    char num[64];
    while (n && *s == ' ')
        ++s, --n;
    while (n && s[n - 1] == ' ')
        --n;
    if (!n || n >= sizeof num)
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    return au_ncu_parse_value(num, v) == AU_OK && *v >= 0 ? 0 : -1;
}

/* The instance values of cell c, "TOTAL (OPCODE: N; OPCODE: N)", into row: its opcodes that begin
 * with ATOM.  A cell without "(" has no instances; one that does not parse keeps none.  AU_OK or
 * AU_E_NOMEM. */
static int cell_ops(const char *c, au_ncu_oprow *row)
{
    const char *p = strchr(c, '(');
    const char *close = p ? strrchr(p, ')') : NULL;
    if (!p || !close)
        return AU_OK;
    row->instances = 1;
    for (++p; p < close;) {
        p += strspn(p, " ");
        const char *colon = memchr(p, ':', (size_t)(close - p));
        const char *semi = colon ? memchr(colon, ';', (size_t)(close - colon)) : NULL;
        const char *vend = semi ? semi : close;
        if (!colon)
            break;
        double v;
        size_t nl = (size_t)(colon - p);
        if (count_of(colon + 1, (size_t)(vend - colon - 1), &v) != 0) {
            row->n = 0; /* a count that does not parse: no opcodes rather than wrong ones */
            row->instances = 0;
            return AU_OK;
        }
        if (nl >= 4 && strncmp(p, "ATOM", 4) == 0) {
            au_ncu_opcount *ops = realloc(row->ops, (row->n + 1) * sizeof *ops);
            if (!ops)
                return au_set_error(AU_E_NOMEM, "out of memory");
            row->ops = ops;
            snprintf(ops[row->n].opcode, sizeof ops[row->n].opcode, "%.*s", (int)nl, p);
            ops[row->n++].executed = v;
        }
        p = vend + 1;
    }
    return AU_OK;
}

int au_ncu_opcodes_parse(const char *name, const char *buf, size_t len, au_ncu_opcodes *out)
{
    memset(out, 0, sizeof *out);
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
        return au_set_error(AU_E_NOMEM, "out of memory");
    au_csv_wide fs = {.max = MAX_COLS};
    int c_id = -1, c_pid = -1, c_m = -1, rc = AU_OK;
    size_t cap = 0;
    long lineno = 0;
    const char *s = buf;
    while ((rc = au_ncu_next_fields(&p, &s, buf + len, &fs, name, &lineno)) == 1) {
        if (c_id < 0 && strcmp(fs.f[0], "ID") == 0) {
            c_id = 0;
            c_pid = au_ncu_column(&fs, "Process ID");
            c_m = au_ncu_column(&fs, AU_NCU_OPCODE_METRIC);
        } else if (c_id >= 0 && c_m >= 0 && fs.n > c_m && fs.f[0][0]) { /* a launch (the units line has no ID) */
            char *end;
            long long id = strtoll(fs.f[c_id], &end, 10);
            if (*end) {
                rc = au_set_error(AU_E_PARSE, "%s:%ld: launch ID '%.40s' is not a number", name, lineno, fs.f[c_id]);
                break;
            }
            if (out->n == cap) { /* doubled: a report may hold many thousands of launches */
                au_ncu_oprow *rows = realloc(out->rows, (cap = cap ? 2 * cap : 64) * sizeof *rows);
                if (!rows) {
                    rc = au_set_error(AU_E_NOMEM, "out of memory");
                    break;
                }
                out->rows = rows;
            }
            au_ncu_oprow *rows = out->rows;
            au_ncu_oprow *r = &rows[out->n++];
            memset(r, 0, sizeof *r);
            r->id = id;
            r->pid = c_pid >= 0 && fs.n > c_pid && fs.f[c_pid][0] ? strtoll(fs.f[c_pid], NULL, 10) : -1;
            if ((rc = cell_ops(fs.f[c_m], r)) != AU_OK)
                break;
        }
        au_csv_wide_clear(&fs);
    }
    au_csv_wide_free(&fs);
    csv_free(&p);
    if (rc != AU_OK)
        au_ncu_opcodes_free(out);
    return rc;
}

static int row_is(const au_ncu_oprow *r, long long id, long long pid)
{
    return r->id == id && (pid < 0 || r->pid < 0 || r->pid == pid);
}

const au_ncu_oprow *au_ncu_opcodes_find(const au_ncu_opcodes *o, long long id, long long pid, size_t *hint)
{
    if (*hint < o->n && row_is(&o->rows[*hint], id, pid))
        return &o->rows[(*hint)++];
    for (size_t i = 0; i < o->n; ++i)
        if (row_is(&o->rows[i], id, pid)) {
            *hint = i + 1;
            return &o->rows[i];
        }
    return NULL;
}

void au_ncu_opcodes_free(au_ncu_opcodes *o)
{
    for (size_t i = 0; o && i < o->n; ++i)
        free(o->rows[i].ops);
    if (o)
        free(o->rows), memset(o, 0, sizeof *o);
}
