/*
 * pipeline.h - one report of atomutil-profile, from the counters files or exports to the output
 * (pipeline.c), and --compare's two.
 */
#ifndef ATOMUTIL_PROFILE_PIPELINE_H
#define ATOMUTIL_PROFILE_PIPELINE_H

#include "cli.h"
#include "live_files.h"
#include "timing.h"

/* Reads f->files (each once, into f->rep and f->runs, unless a live run read its file), selects,
 * picks the table, evaluates, prices by opcodes, warns and writes the report.  The exit status. */
int au_pipeline_report(const cli_options *o, run_files *f, timing *tm);
/* --compare A B: both evaluated the same way, then side by side.  The exit status. */
int au_pipeline_compare(const cli_options *o);

#endif
