/*
 * atomutil/csvline.h - one CSV line split into NUL-terminated fields with libcsv in strict mode;
 * shared by atomutil's readers (tables, Nsight Compute exports, SASS files), which all read line
 * by line so that errors can name the line.  au_csv_line holds up to AU_CSV_MAX_FIELDS fields in
 * place; au_csv_wide grows its field arrays on the heap, for lines of thousands of fields (Nsight
 * Compute's raw page: one column per metric).
 */
#ifndef ATOMUTIL_CSVLINE_H
#define ATOMUTIL_CSVLINE_H

#include <csv.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AU_CSV_MAX_FIELDS 64

typedef struct au_csv_line {
    char *f[AU_CSV_MAX_FIELDS]; /* the fields, malloc'ed copies */
    size_t len[AU_CSV_MAX_FIELDS];
    int n;   /* fields kept */
    int max; /* fields wanted at most (1..AU_CSV_MAX_FIELDS); a line with more sets overflow */
    int overflow;
    int nomem;
    int csv_err; /* libcsv's error of a line that did not parse */
} au_csv_line;

/* Splits s[0..len) (one line, no line end) with p, created with csv_init(CSV_STRICT |
 * CSV_STRICT_FINI).  Returns AU_OK, AU_E_NOMEM, or AU_E_PARSE (csv_err says why); overflow is
 * reported through line->overflow.  Clears line first: set line->max before the first call. */
int au_csv_split(struct csv_parser *p, const char *s, size_t len, au_csv_line *line);
/* Frees the fields (max is kept). */
void au_csv_line_clear(au_csv_line *line);

typedef struct au_csv_wide {
    char **f; /* the fields, malloc'ed copies, in arrays that grow as lines need */
    size_t *len;
    int n;   /* fields kept */
    int cap; /* room in f and len */
    int max; /* fields wanted at most (>= 1); a line with more sets overflow */
    int overflow;
    int nomem;
    int csv_err;
} au_csv_wide;

/* As au_csv_split, for a line of any width up to line->max fields (set before the first call; the
 * rest zero). */
int au_csv_split_wide(struct csv_parser *p, const char *s, size_t len, au_csv_wide *line);
/* Frees the fields (the arrays and max are kept for the next line). */
void au_csv_wide_clear(au_csv_wide *line);
/* Frees the fields and the arrays. */
void au_csv_wide_free(au_csv_wide *line);

#ifdef __cplusplus
}
#endif
#endif
