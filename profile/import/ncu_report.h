/*
 * ncu_report.h - an Nsight Compute report (.ncu-rep) read as its raw page: atomutil does not read
 * the report's binary format itself; ncu does (`ncu --import FILE --csv --page raw`), and its
 * output goes to the CSV reader (ncu_import.h) as a file's text would.
 */
#ifndef ATOMUTIL_NCU_REPORT_H
#define ATOMUTIL_NCU_REPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when path is an Nsight Compute report: its first bytes are a report's ("NVR" and a NUL), or
 * its name ends in .ncu-rep (a report whose first bytes are another version's: ncu says what it
 * is); 0 otherwise, and when it cannot be opened (the file's reader says why). */
int au_ncu_is_report(const char *path);

/* Runs ncu ($ATOMUTIL_NCU, else ncu on PATH) as `ncu --import path --csv --page raw` and returns
 * what it wrote to stdout in *buf (malloc'ed, NUL-terminated, *len bytes, at most max), its stderr
 * dropped.  AU_OK, or < 0 with au_last_error() = "PATH: why": ncu cannot be run (which ncu is
 * needed, and the command that exports the CSV by hand), ncu failed (its exit status and error
 * line), or wrote no CSV; *buf is then NULL. */
int au_ncu_report_csv(const char *path, size_t max, char **buf, size_t *len);

/* The same with --print-metric-instances details --metrics AU_NCU_OPCODE_METRIC
 * (ncu_opcodes.h): each launch's executions per opcode, where the report holds them. */
int au_ncu_report_opcodes(const char *path, size_t max, char **buf, size_t *len);

/* `ncu --import path --csv --page source --print-source sass` (ncu_source.h): each launch's SASS
 * with its executions per instruction, where the report holds ncu's source counters. */
int au_ncu_report_source(const char *path, size_t max, char **buf, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
