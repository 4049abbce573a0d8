/*
 * counters_file.h - the counters file of a live run (docs/live-profiling.md): ncu long-format CSV
 * rows, and the injection library's own lines, all of the form
 *     ==ATOMUTIL== <pid> <kind>: <text>
 * with kind a diagnostic level (info, warning, error), "code" (a kernel's cubin), "graph" (a graph
 * launch's kernels) or, as "info: timing: ...", the library's timing.  One writer for the line's
 * head (the injection library) and one single-pass reader (atomutil-profile), pure C.
 */
#ifndef ATOMUTIL_COUNTERS_FILE_H
#define ATOMUTIL_COUNTERS_FILE_H

#include <stddef.h>

#define AU_CF_TAG "==ATOMUTIL== "

/* Writes "==ATOMUTIL== <pid> <kind>: " into buf (snprintf's return value). */
int au_cf_head(char *buf, size_t size, long pid, const char *kind);

typedef enum {
    AU_CF_OTHER,  /* the CSV header, blank or unknown lines */
    AU_CF_ROW,    /* a CSV data row (begins with '"') */
    AU_CF_DIAG,   /* an ==ATOMUTIL== line of a level: info (not timing), warning, error */
    AU_CF_CODE,   /* "code: <crc> <mangled> <demangled>" */
    AU_CF_GRAPH,  /* "graph: <launch id> <mangled>..." */
    AU_CF_TIMING, /* "info: timing: ..." */
} au_cf_kind;

/* One line as the reader hands it over (NUL-terminated, in the reader's buffer, writable). */
typedef struct {
    au_cf_kind kind;
    char *line;  /* the whole line */
    char *level; /* tagged lines: what follows "<pid> " ("error: ...", "code: ..."); else NULL */
    char *text;  /* CODE, GRAPH, TIMING: what follows "code: ", "graph: ", "info: timing: " */
    long lineno; /* 1-based */
} au_cf_line;

/* The kind of `line` (NUL-terminated), with l filled in. */
au_cf_kind au_cf_classify(char *line, long lineno, au_cf_line *l);

/* Reads path (at most max bytes) once and calls fn on every line in order; fn returning nonzero
 * stops the read.  AU_OK, or < 0 with au_last_error() set when the file cannot be read. */
typedef int (*au_cf_fn)(const au_cf_line *l, void *ud);
int au_cf_read(const char *path, size_t max, au_cf_fn fn, void *ud);

#endif
