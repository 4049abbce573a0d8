/*
 * share.h - one GPU's counters for several profiled processes (share.c): the range profiler holds
 * a GPU's counters for one process at a time, so the processes take turns through lock files.
 * With au_g.lock.
 */
#ifndef ATOMUTIL_INJECT_SHARE_H
#define ATOMUTIL_INJECT_SHARE_H

#include "contexts.h"

#define AU_SHARE_MAX_WAIT_S 60.0 /* a launch waits this long for the lock at most */

/* Takes c's GPU's lock before enabling collection there (may release au_g.lock while it
 * waits; 0: go on, -1: this launch runs unmeasured); at the end of every measured launch, give
 * the lock up if another process waits; at exit, the waiting time and handovers. */
int au_share_acquire(ctx_state *c);
int au_share_try(ctx_state *c); /* the same without waiting: -1 if another process holds it */
void au_share_launch_done(ctx_state *c);
void au_share_report(void);

#endif
