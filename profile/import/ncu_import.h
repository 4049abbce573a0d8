/*
 * ncu_import.h - reads an Nsight Compute CSV export into an au_report: the details page (`ncu --csv
 * --metrics ...`, long format: one row per launch and metric) or the raw page (`--page raw`: one
 * row per launch, one column per metric, a units line).  Application output and ==PROF== lines
 * around and between the CSV rows are skipped; everything else must be well formed.
 */
#ifndef ATOMUTIL_NCU_IMPORT_H
#define ATOMUTIL_NCU_IMPORT_H

#include "atomutil/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The header row of Nsight Compute's long CSV format, which atomutil's own counters files use too
 * (docs/live-profiling.md). */
#define AU_NCU_CSV_HEADER                                                                         \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","           \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\"," \
    "\"Metric Unit\",\"Metric Value\"\n"

/* Appends one au_launch per profiled launch (in the order of first appearance) to r and sets
 * r->source.  Returns AU_OK, or < 0 with au_last_error() = "FILE:LINE: what is wrong".
 * Launches that lack a required metric are kept (their counters' have bits say what is there,
 * missing_names lists the absent metrics). */
int au_ncu_import(const char *path, au_report *r);
int au_ncu_import_buffer(const char *name, const char *buf, size_t len, au_report *r);

/* A file that a service-time table was to be read from (au_table_load's status): when it is an
 * export or counters file, status with au_last_error() = "PATH: this is an Nsight Compute export
 * or counters file, not a service-time table; pass it with --import"; else status, the table's
 * message kept.  (The reverse, a table read as an export, the reader says itself.) */
int au_ncu_table_error(const char *path, int status);

/* One of ncu's values, "1,980,000" / "26,073.14" / "-3" (an instanced metric's "AGGREGATE
 * (INSTANCES)": its aggregate) -> *out: AU_OK, or AU_E_PARSE if not a finite number or if the
 * commas are not thousands separators of the integer part. */
int au_ncu_parse_value(const char *s, double *out);

/* 1 when buf[0..len) is an export or counters file, as the reader would take it: the CSV header on
 * a line (after any program output), and its first line not a service-time table's. */
int au_ncu_has_header(const char *buf, size_t len);

struct au_csv_wide;
struct csv_parser;
/* The next CSV line of ncu's output in [*s, e) (a line that begins with '"'; program output and
 * ==PROF== lines are skipped) split into fs with p (atomutil/csvline.h), *s moved past it and
 * *lineno counted for every line: 1, 0 at the end, or < 0 with au_last_error() = "NAME:LINE:
 * malformed CSV line" (or out of memory). */
int au_ncu_next_fields(struct csv_parser *p, const char **s, const char *e, struct au_csv_wide *fs, const char *name,
                       long *lineno);
/* The column named name in the header line fs, or -1. */
int au_ncu_column(const struct au_csv_wide *fs, const char *name);

/* The same export line by line, for a reader that reads other lines of the file too (run.h):
 * au_ncu_begin (r->source set to name), au_ncu_check on the whole text, au_ncu_line for each line
 * (without its '\n') while AU_OK, then au_ncu_end with the status so far, which checks the whole
 * (a header, rows) and frees the reader.  Each returns AU_OK or < 0 with au_last_error() set. */
typedef struct au_ncu_reader au_ncu_reader;
int au_ncu_begin(const char *name, au_report *r, au_ncu_reader **out);
int au_ncu_check(const char *name, const char *buf, size_t len);
int au_ncu_line(au_ncu_reader *rd, const char *line, size_t len);
int au_ncu_end(au_ncu_reader *rd, int status);
/* 1 when the header read so far is the raw page's (one column per metric), 0 otherwise. */
int au_ncu_raw(const au_ncu_reader *rd);

#ifdef __cplusplus
}
#endif
#endif
