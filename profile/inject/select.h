/*
 * select.h - which launches are measured (select.c): atomutil-profile's -k, --launch-skip,
 * --launch-count, --launches-per-kernel, --profile-from-start (docs/live-profiling.md, "Selection").
 * With au_g.lock, but au_select_literal (decided at init, read by the module-load callback).
 */
#ifndef ATOMUTIL_INJECT_SELECT_H
#define ATOMUTIL_INJECT_SELECT_H

#include "base.h"

#include "graphs.h"
#include "kernels.h" /* select.c counts selections in the kernels' entries */

void au_select_init(void);
/* 1: measure this kernel launch (counted as selected), 0: run it unmeasured. */
int au_select_launch(const void *func, const char *mangled);
/* The same for a graph launch: its kernels' mangled names (k may be NULL), key its exec. */
int au_select_graph(const void *key, const au_graph_kernels *k);
/* -k's text when every kernel name it matches must contain it verbatim in its mangled form too
 * (a plain identifier, not part of a word that demangling spells out); NULL otherwise. */
const char *au_select_literal(void);
/* Nothing more will be selected in this process (--launch-count reached). */
int au_select_exhausted(void);
/* cuProfilerStart (1) / cuProfilerStop (0) returned successfully. */
void au_select_profiler(int start);
/* The exit line: launches seen and selected (nothing when no selection was asked for). */
void au_select_report(void);

#endif
