/*
 * csvline.c - splitting one CSV line with libcsv (atomutil/csvline.h): into a line of at most
 * AU_CSV_MAX_FIELDS fields held in place, or into a wide line whose arrays grow on the heap.
 */
#include "atomutil/csvline.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of a field; NULL when out of memory. */
static char *field_copy(const void *s, size_t len)
{
    char *f = malloc(len + 1);
    if (f) {
        memcpy(f, s, len);
        f[len] = '\0';
    }
    return f;
}

static void on_field(void *s, size_t len, void *data)
{
    au_csv_line *l = data;
    int max = l->max > 0 && l->max <= AU_CSV_MAX_FIELDS ? l->max : AU_CSV_MAX_FIELDS;
    if (l->n >= max) {
        l->overflow = 1;
        return;
    }
    char *f = field_copy(s, len);
    if (!f) {
        l->nomem = 1;
        return;
    }
    l->len[l->n] = len;
    l->f[l->n++] = f;
}

/* Room for one more field in a wide line: 0, or -1 out of memory. */
static int wide_room(au_csv_wide *l)
{
    if (l->n < l->cap)
        return 0;
    int cap = l->cap ? (l->cap > l->max / 2 ? l->max : l->cap * 2) : (l->max < 64 ? l->max : 64);
    char **f = realloc(l->f, (size_t)cap * sizeof *f);
    if (f)
        l->f = f;
    size_t *len = f ? realloc(l->len, (size_t)cap * sizeof *len) : NULL;
    if (!len)
        return -1;
    l->len = len;
    l->cap = cap;
    return 0;
}

static void on_wide_field(void *s, size_t len, void *data)
{
    au_csv_wide *l = data;
    if (l->n >= l->max) {
        l->overflow = 1;
        return;
    }
    char *f = wide_room(l) == 0 ? field_copy(s, len) : NULL;
    if (!f) {
        l->nomem = 1;
        return;
    }
    l->len[l->n] = len;
    l->f[l->n++] = f;
}

static void on_row(int c, void *data)
{
    (void)c;
    (void)data;
}

/* Parses s[0..len) with p, each field to field(data): AU_OK, or AU_E_PARSE with *csv_err set. */
static int parse_line(struct csv_parser *p, const char *s, size_t len, void (*field)(void *, size_t, void *),
                      void *data, int *csv_err)
{
    if (csv_parse(p, s, len, field, on_row, data) != len || csv_fini(p, field, on_row, data) != 0) {
        *csv_err = csv_error(p); /* the csv_fini below resets it */
        csv_fini(p, field, on_row, data);
        return AU_E_PARSE;
    }
    return AU_OK;
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
    int rc = parse_line(p, s, len, on_field, l, &l->csv_err);
    return rc != AU_OK ? rc : l->nomem ? AU_E_NOMEM : AU_OK;
}

void au_csv_wide_clear(au_csv_wide *l)
{
    for (int i = 0; i < l->n; ++i)
        free(l->f[i]);
    l->n = l->overflow = l->nomem = l->csv_err = 0;
}

void au_csv_wide_free(au_csv_wide *l)
{
    au_csv_wide_clear(l);
    free(l->f);
    free(l->len);
    l->f = NULL;
    l->len = NULL;
    l->cap = 0;
}

int au_csv_split_wide(struct csv_parser *p, const char *s, size_t len, au_csv_wide *l)
{
    au_csv_wide_clear(l);
    int rc = parse_line(p, s, len, on_wide_field, l, &l->csv_err);
    return rc != AU_OK ? rc : l->nomem ? AU_E_NOMEM : AU_OK;
}
