/*
 * ncu_import.h - reads an Nsight Compute CSV export (`ncu --csv --metrics ...`, long format: one
 * row per launch and metric) into an au_report.  Application output and ==PROF== lines around and
 * between the CSV rows are skipped; everything else must be well formed.
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

#ifdef __cplusplus
}
#endif
#endif
