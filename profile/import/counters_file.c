/*
 * counters_file.c - the head of the injection library's counters-file lines, and the single-pass
 * reader of a counters file (counters_file.h).
 */
#include "counters_file.h"

#include "atomutil/model.h"
#include "atomutil/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int au_cf_head(char *buf, size_t size, long pid, const char *kind)
{
    return snprintf(buf, size, AU_CF_TAG "%ld %s: ", pid, kind);
}

au_cf_kind au_cf_classify(char *line, long lineno, au_cf_line *l)
{
    static const size_t tag = sizeof AU_CF_TAG - 1;
    memset(l, 0, sizeof *l);
    l->line = line;
    l->lineno = lineno;
    l->kind = AU_CF_OTHER;
    if (line[0] == '"')
        return l->kind = AU_CF_ROW;
    char *sp;
    if (strncmp(line, AU_CF_TAG, tag) != 0 || (sp = strchr(line + tag, ' ')) == NULL)
        return l->kind;
    l->level = sp + 1;
    l->kind = AU_CF_DIAG;
    if (strncmp(l->level, "code: ", 6) == 0) {
        l->kind = AU_CF_CODE;
        l->text = l->level + 6;
    } else if (strncmp(l->level, "graph: ", 7) == 0) {
        l->kind = AU_CF_GRAPH;
        l->text = l->level + 7;
    } else if (strncmp(l->level, "info: timing: ", 14) == 0) {
        l->kind = AU_CF_TIMING;
        l->text = l->level + 14;
    }
    return l->kind;
}

typedef struct cf_reader {
    au_cf_fn fn;
    void *ud;
} cf_reader;

/* One pass over the file's lines (each cut at its '\n' in place), classified, until fn says stop. */
static int cf_parse(const char *name, char *buf, size_t len, void *out)
{
    (void)name, (void)len;
    const cf_reader *r = out;
    long lineno = 0;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        au_cf_line l;
        au_cf_classify(line, ++lineno, &l);
        if (r->fn(&l, r->ud))
            break;
        line = nl ? nl + 1 : NULL;
    }
    return AU_OK;
}

int au_cf_read(const char *path, size_t max, au_cf_fn fn, void *ud)
{
    cf_reader r = {fn, ud};
    return au_parse_file(path, max, cf_parse, &r);
}
