/*
 * inject_internal.h - what the parts of atomutil's injection library share: per-context state,
 * the pending launches, the process-wide state, the output helpers and the collector interface
 * (one collector: the range profiler of range.c, the model's hardware counters per launch).
 */
#ifndef ATOMUTIL_INJECT_INTERNAL_H
#define ATOMUTIL_INJECT_INTERNAL_H

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "counters_file.h"
#include "range_state.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

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
    CUcontext ctx;
    uint32_t ctx_id;
    CUdevice dev;
    char dev_name[256];
    int cc_major, cc_minor, sm_count;
    int failed; /* collection could not be set up for this context: launches are not measured */
    /* range.c writes these two; inject.c and share.c read them under au_g.lock to decide what a
     * launch may do, so they stand here rather than in c->range */
    int enabled;                 /* the collector is enabled on this context */
    int in_graph;                /* a graph launch's range is open */
    pending_launch graph_launch; /* ... and the row it will write (inject.c) */
    pending_launch *pend;
    size_t npend, cap;
    int inflight;   /* measured launch calls of this context between their enter and exit callbacks */
    int unmeasured; /* a launch ran unmeasured since the last measured one (inject.c, settle_unmeasured) */
    int early;      /* its set-up runs beside the program (contexts.c, read with au_ctx_early): until
                     * it is 0 only ctx, dev and the launch bookkeeping may be read */
    int abandoned;  /* that set-up did not end in time: never measured (au_g.lock) */
    int recreated;  /* destroyed, and a context with the same handle created since (atomic: the
                     * creation's callback sets it without au_g.lock): never found again */
    /* the range profiler's part: range.c's alone */
    au_range_ctx range;
    struct ctx_state *next;
} ctx_state;

typedef struct inject_state {
    pthread_mutex_t lock;
    int initialized;
    CUpti_SubscriberHandle sub;
    int fd; /* counters file, O_APPEND */
    long long next_id;
    long pid;
    char proc_name[64];
    ctx_state *contexts;
    int profiler_initialized; /* AU_PROFILER_* (atomic: an early set-up writes it without au_g.lock) */
    int early;                /* set contexts up when they are created (contexts.c; ATOMUTIL_EARLY_SETUP) */
    /* an early set-up's end: early_done is signalled under early_lock, which also guards the
     * early set-ups' figures (stats.c; the early set-up never takes au_g.lock after it started) */
    pthread_mutex_t early_lock;
    pthread_cond_t early_done;
    int captures;             /* stream captures in progress in this process */
    long long graph_skipped;  /* graph launches, not measured */
    long long graph_measured; /* graph launches measured as one range each */
    int graphs;               /* measure graph launches (ATOMUTIL_GRAPHS=off: not) */
    int graph_open;           /* a graph launch's range is open, by graph_owner's launch call */
    pthread_t graph_owner;
    pthread_cond_t graph_done;  /* signalled when it closes */
    pthread_cond_t launch_done; /* signalled when a measured launch's call returns (inject.c, wait_launches) */
    long long capture_skipped;  /* launches that ran while another stream was being captured */
    int exiting;                /* exit handlers are running: callbacks do nothing */
    int atexit_late;            /* at_exit registered again at the first launch */
    long long share_skipped;    /* launches run unmeasured after waiting too long for the counters */
} inject_state;

/* The CUPTI profiler's initialization, made once per process (contexts.c). */
enum { AU_PROFILER_NO = 0, AU_PROFILER_YES = 1, AU_PROFILER_STARTING = 2 };

/* base.c: the shared state and what every module uses (it calls no other module). */
extern inject_state au_g;

void au_write_all(const char *buf, size_t len);
double au_now(void); /* monotonic seconds */
/* Runs fn(arg) on a detached thread of the library; pthread_create's result. */
int au_spawn_detached(void *(*fn)(void *), void *arg);
/* A line for atomutil-profile: "==ATOMUTIL== <pid> <kind>: text" (profile/import/cf_kinds.def);
 * au_error's "error: <category>: text" (cf_errors.def); au_timing's timing line (cf_timing.def). */
void au_diag(au_cf_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void au_error(au_cf_errcat cat, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void au_timing(const au_cf_timing *t);
void au_report_cupti(const char *call, CUptiResult r);
void au_free_pending(ctx_state *c, size_t first_n);
/* Kernel name quoted for CSV ("" doubled) into buf. */
void au_csv_quote(const char *s, char *buf, size_t size);
/* The demangled name (malloc'ed; the name itself if it does not demangle). */
char *au_demangle(const char *name);

/* An early set-up of c is running (contexts.c). */
static inline int au_ctx_early(const ctx_state *c)
{
    return __atomic_load_n(&c->early, __ATOMIC_ACQUIRE);
}

/* contexts.c, all with au_g.lock but au_ctx_created: the context's entry, NULL if none yet; made
 * (and set up) at need, waiting for an early set-up in progress (NULL: no memory, or it hung);
 * au_ctx_created starts the early set-up of a context just created (from the resource callback,
 * without au_g.lock); the waits for early set-ups before a context's destruction and the exit. */
ctx_state *au_ctx_find(CUcontext ctx);
ctx_state *au_ctx_get(CUcontext ctx);
void au_ctx_created(CUcontext ctx);
int au_ctx_wait_early(ctx_state *c);
void au_ctx_wait_all_early(void);

/* One check per CUPTI call: on failure, a diagnostic naming the call, then `action`. */
#define CUPTI_CHECK(call, action)       \
    do {                                \
        CUptiResult r_ = (call);        \
        if (r_ != CUPTI_SUCCESS) {      \
            au_report_cupti(#call, r_); \
            action;                     \
        }                               \
    } while (0)

#endif
