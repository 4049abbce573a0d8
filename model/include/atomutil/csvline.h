/*
 * atomutil/csvline.h - one CSV line split into NUL-terminated fields with libcsv in strict mode;
 * shared by atomutil's readers (tables, Nsight Compute exports, SASS files), which all read line
 * by line so that errors can name the line.
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

#ifdef __cplusplus
}
#endif
#endif
