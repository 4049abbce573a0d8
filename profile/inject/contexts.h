/*
 * contexts.h - what the injection library keeps of one CUDA context (ctx_state), and the list of
 * them (contexts.c).  One record per context, made by the set-up (setup.c) and never freed; its
 * fields are grouped by the module that writes them.  With au_g.lock held, but what says otherwise.
 */
#ifndef ATOMUTIL_INJECT_CONTEXTS_H
#define ATOMUTIL_INJECT_CONTEXTS_H

#include <cuda.h>

#include "range_state.h"

#include <stddef.h>
#include <stdint.h>

/* A measured launch, from its driver call's entry until its row is written. */
typedef struct pending_launch {
    long long id;
    char *kernel;
    unsigned grid[3], block[3];
    uint32_t stream_id;
    unsigned cluster; /* blocks per cluster (1 without clusters) */
    int set;          /* counter set measured: AU_INJECT_SET_* */
    const void *func; /* the launch's CUfunction (or the runtime's CUkernel): the kernel's identity */
} pending_launch;

typedef struct ctx_state {
    /* the context and its description (setup.c) */
    CUcontext ctx;
    uint32_t ctx_id;
    CUdevice dev;
    char dev_name[256];
    int cc_major, cc_minor, sm_count;
    int failed;    /* collection could not be set up for this context: launches are not measured */
    int early;     /* its set-up runs beside the program (setup.c, read with au_ctx_early): until
                    * it is 0 only ctx, dev and the launch bookkeeping may be read */
    int abandoned; /* that set-up did not end in time: never measured */
    int recreated; /* destroyed, and a context with the same handle created since (atomic: the
                    * creation's callback sets it without au_g.lock): never found again */
    /* range.c writes these two; inject.c and share.c read them under au_g.lock to decide what a
     * launch may do, so they stand here rather than in c->range */
    int enabled;  /* the collector is enabled on this context */
    int in_graph; /* a graph launch's range is open */
    /* the launch bookkeeping (inject.c; range.c writes the pending launches out) */
    pending_launch graph_launch; /* the open graph launch's row */
    pending_launch *pend;
    size_t npend, cap;
    int inflight;   /* measured launch calls of this context between their enter and exit callbacks
                     * (share.c reads it: the GPU's lock is not given up meanwhile) */
    int unmeasured; /* a launch ran unmeasured since the last measured one (inject.c, settle_unmeasured) */
    /* the range profiler's part: range.c's alone */
    au_range_ctx range;
    struct ctx_state *next;
} ctx_state;

/* An early set-up of c is running (setup.c). */
static inline int au_ctx_early(const ctx_state *c)
{
    return __atomic_load_n(&c->early, __ATOMIC_ACQUIRE);
}

/* The context's entry, NULL if none (or a retired one). */
ctx_state *au_ctx_find(CUcontext ctx);
/* Lists c.  Entries are never freed nor unlisted, and the head is stored atomically, so that
 * au_ctx_retire can walk the list without au_g.lock. */
void au_ctx_publish(ctx_state *c);
/* The newest entry; c->next the one before. */
ctx_state *au_ctx_first(void);
/* A context with ctx's handle was created (without au_g.lock): the older entries of that handle,
 * failed at their destruction, are never found again. */
void au_ctx_retire(CUcontext ctx);
/* Frees the first first_n pending launches of c (all: c->npend). */
void au_free_pending(ctx_state *c, size_t first_n);

#endif
