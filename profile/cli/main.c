/*
 * atomutil-profile - reports, per kernel launch, the utilization U of the SM's shared-memory atomic
 * unit from hardware counters and a measured service-time table.
 * Counters come from a live run of a program under the CUPTI injection library (`-- ./app`,
 * live.c, live_files.c), or from an Nsight Compute CSV export (--import); --compare puts two side
 * by side.  This file dispatches: the command line (options.c), the report (pipeline.c), --timing
 * (timing.c).
 */
#include "cli.h"
#include "live_files.h"
#include "pipeline.h"
#include "timing.h"

#include "atomutil/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ATOMUTIL_TEST_TRACE=1 (tests/cli only): every file read is named on stderr, and the evaluations
 * counted (pipeline.c), so that a test can check that a report reads each counters file once and
 * evaluates each launch once. */
static void trace_read(const char *path)
{
    fprintf(stderr, "atomutil-profile: test: read %s\n", path);
}

/* -- PROGRAM or --import FILE: one report. */
static int run_single(const cli_options *o, timing *tm)
{
    static run_files f; /* large; one per process */
    memset(&f, 0, sizeof f);
    au_report_init(&f.rep);
    f.files = o->args;
    f.nfiles = (size_t)o->nargs;
    if (o->live) {
        int st = au_live_files_run(o, &f, tm);
        if (st >= 0) {
            au_live_files_prefetch_free();
            au_live_files_free(&f);
            return st;
        }
    }
    int rc = au_pipeline_report(o, &f, tm);
    au_live_files_prefetch_free();
    if (o->live)
        rc = au_live_files_finish(o, &f, rc);
    if (o->timing_on)
        au_timing_print(tm);
    au_live_files_free(&f);
    return rc;
}

int main(int argc, char **argv)
{
    timing tm;
    memset(&tm, 0, sizeof tm);
    tm.start = au_monotonic_s();
    const char *trace = getenv("ATOMUTIL_TEST_TRACE");
    if (trace && strcmp(trace, "1") == 0)
        au_read_file_trace(trace_read);
    cli_options o;
    int rc = au_options_parse(argc, argv, &o);
    o.trace = trace && strcmp(trace, "1") == 0;
    if (rc < 0)
        rc = o.compare ? au_pipeline_compare(&o) : run_single(&o, &tm);
    free(o.args);
    return rc;
}
