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
#include "contexts.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct inject_state {
    pthread_mutex_t lock;
    int initialized;
    CUpti_SubscriberHandle sub;
    int fd; /* counters file, O_APPEND */
    long long next_id;
    long pid;
    char proc_name[64];
    /* an early set-up's end (setup.c, its early_done) and the early set-ups' figures (stats.c):
     * the early set-up never takes au_g.lock after it started */
    pthread_mutex_t early_lock;
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
/* Kernel name quoted for CSV ("" doubled) into buf. */
void au_csv_quote(const char *s, char *buf, size_t size);
/* The demangled name (malloc'ed; the name itself if it does not demangle). */
char *au_demangle(const char *name);

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
