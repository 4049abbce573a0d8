/*
 * selection.h - -k, --launch-skip, --launch-count and --launches-per-kernel on the launches that
 * atomutil-profile reads from counters files and exports (docs/cli.md, "Selection").
 */
#ifndef ATOMUTIL_PROFILE_SELECTION_H
#define ATOMUTIL_PROFILE_SELECTION_H

#include "atomutil/model.h"

/* Keeps the launches of rep from index `from` on that a live run would have measured, in each file
 * (au_launch.file) on its own: those whose kernel matches regex (POSIX extended; NULL: all), then
 * au_selector's skip, count (-1: all) and per-kernel cap (-1: none).  The others are dropped.
 * 0, or after one line on stderr -1 (a regex that does not compile) or -2 (out of memory). */
int au_selection_apply(au_report *rep, size_t from, const char *regex, long skip, long count, long per_kernel);

#endif
