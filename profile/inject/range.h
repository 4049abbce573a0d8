/*
 * range.h - the collector (range.c): the CUPTI Range Profiler, one range per kernel launch (auto
 * range) or per graph launch (user range), decoded into the counters file's rows.  Every function
 * is called with au_g.lock held, but au_range_init (InitializeInjection) and au_range_setup and
 * au_range_prepare in an early set-up (setup.c), which touch only c's own fields.
 */
#ifndef ATOMUTIL_INJECT_RANGE_H
#define ATOMUTIL_INJECT_RANGE_H

#include "contexts.h"

/* The counter sets' metrics (model/src/metrics.c) and ATOMUTIL_MAX_RANGES, once. */
void au_range_init(void);
/* Once per context, at its creation or first measured launch. */
int au_range_setup(ctx_state *c);
/* The early set-up's part after au_range_setup, without au_g.lock, with the GPU's lock held
 * (share.c); what fails is made again at the first enable. */
int au_range_prepare(ctx_state *c);
/* Makes c a collecting context, with counter set `set`; one process at a time can collect on a
 * GPU: share.c's lock is taken first. */
int au_range_enable(ctx_state *c, int set);
/* The counter set configured on c's profiler (-1 before the first). */
int au_range_current_set(const ctx_state *c);
/* Passes counter set `set` takes on c's chip (more than 1: each launch is replayed); 1 before
 * the set is configured. */
size_t au_range_passes(const ctx_state *c, int set);
void au_range_flush(ctx_state *c); /* writes what finished launches measured */
void au_range_pause(ctx_state *c); /* stops collecting (stream capture, graph launch) */
int au_range_resume(ctx_state *c);
void au_range_disable(ctx_state *c);
int au_range_use_set(ctx_state *c, int set); /* the counter set of the next launch */
/* A graph launch measured as one range: begin before the launch call, end after it returns,
 * with the launch's row to write. */
int au_range_graph_begin(ctx_state *c);
void au_range_graph_end(ctx_state *c, pending_launch *l, CUstream stream);

#endif
