/*
 * timing.h - atomutil-profile --timing (docs/cli.md, "Timing"): the seconds of each phase, summed
 * where a phase ran several times, printed on stderr after the report.
 */
#ifndef ATOMUTIL_PROFILE_TIMING_H
#define ATOMUTIL_PROFILE_TIMING_H

#include "opcodes.h"
#include "run.h"

/* The phases' figures; "n/a" for a phase that did not run or whose figures the counters file
 * lacks. */
typedef struct {
    double start;    /* main() began */
    int live;        /* the target ran (run_s) */
    double run_s;    /* its wall time, fork to exit */
    int have_inject; /* the injection library's figures were read (inject) */
    au_cf_sums inject;
    double report_s; /* reading the counters, the model, writing the report */
    int opcodes_ran; /* the opcodes phase ran (opcodes_s, op) */
    double opcodes_s;
    au_opcodes_stats op;
} timing;

/* Adds one opcodes phase's counts and seconds. */
void au_timing_add_opcodes(timing *tm, const au_opcodes_stats *op, double seconds);
/* Adds one counters file's injection figures (the first implausible line kept). */
void au_timing_add_inject(timing *tm, const au_cf_sums *t);
/* The phases on stderr, one line each, and the total since tm->start. */
void au_timing_print(const timing *tm);

#endif
