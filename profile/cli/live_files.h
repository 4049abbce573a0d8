/*
 * live_files.h - the files of a live run (-- PROGRAM): BASE.counters.csv and BASE.cubins/ made
 * for the program, renamed when -o names its pid (%p), kept or removed after the report; and the
 * table loaded while the program runs.
 */
#ifndef ATOMUTIL_PROFILE_LIVE_FILES_H
#define ATOMUTIL_PROFILE_LIVE_FILES_H

#include "cli.h"
#include "live.h"
#include "timing.h"

/* Where a report's counters and kernel code are: a live run's BASE.counters.csv and BASE.cubins/,
 * or the exports given to --import (and the BASE.cubins/ of the runs that made them). */
typedef struct {
    char counters[4200], base[4096], cubin_dir[4200]; /* a live run's */
    const char *const *files;                         /* the counters files or exports read */
    size_t nfiles;
    const char *live_file[1];
    live_result lr;
    au_report rep;         /* the launches of the files (a live run's read by au_live_files_run) */
    au_cf_run *runs;       /* per file: what else it said (nfiles of them; NULL before the read) */
    au_cf_run live_run[1]; /* a live run's */
} run_files;

/* -- PROGRAM: runs it under CUPTI into f->counters, which is then read once (into f->rep and
 * f->runs[0]) and its diagnostics relayed.  -1 to go on to the report, or the exit status (nothing
 * measured, or profiling could not be set up). */
int au_live_files_run(const cli_options *o, run_files *f, timing *tm);
/* After a live run's report: removes or keeps its counters and code.  The exit status. */
int au_live_files_finish(const cli_options *o, const run_files *f, int rc);
/* Frees what the files' read made (f->rep, f->runs). */
void au_live_files_free(run_files *f);

/* The table loaded while the program ran, when it is the file at path: the caller's now (to free);
 * else NULL. */
au_table *au_live_files_prefetched(const char *path);
/* Frees the table loaded while the program ran, if the report did not take it. */
void au_live_files_prefetch_free(void);

#endif
