/*
 * csvline.c - splitting one CSV line with libcsv (atomutil/csvline.h).
 */
#include "atomutil/csvline.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void on_field(void *s, size_t len, void *data)
{
    au_csv_line *l = data;
    int max = l->max > 0 && l->max <= AU_CSV_MAX_FIELDS ? l->max : AU_CSV_MAX_FIELDS;
    if (l->n >= max) {
        l->overflow = 1;
        return;
    }
    char *f = malloc(len + 1);
    if (!f) {
        l->nomem = 1;
        return;
    }
    memcpy(f, s, len);
    f[len] = '\0';
    l->len[l->n] = len;
    l->f[l->n++] = f;
}

static void on_row(int c, void *data)
{
    (void)c;
    (void)data;
}

void au_csv_line_clear(au_csv_line *l)
{
    for (int i = 0; i < l->n; ++i)
        free(l->f[i]);
    l->n = l->overflow = l->nomem = l->csv_err = 0;
}

int au_csv_split(struct csv_parser *p, const char *s, size_t len, au_csv_line *l)
{
    au_csv_line_clear(l);
    if (csv_parse(p, s, len, on_field, on_row, l) != len || csv_fini(p, on_field, on_row, l) != 0) {
        l->csv_err = csv_error(p); /* the csv_fini below resets it */
        csv_fini(p, on_field, on_row, l);
        return AU_E_PARSE;
    }
    return l->nomem ? AU_E_NOMEM : AU_OK;
}
