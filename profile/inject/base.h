/*
 * base.h - what every module of atomutil's injection library uses (base.c, which calls no other
 * module): the library's lock and the few facts several modules read under it, the process's
 * identity, the counters file's lines ('==ATOMUTIL==' diagnostics, timing lines, CUPTI errors),
 * the clock, detached threads and demangling.
 */
#ifndef ATOMUTIL_INJECT_BASE_H
#define ATOMUTIL_INJECT_BASE_H

#include <cupti.h>

#include "counters_file.h"

#include <pthread.h>
#include <stddef.h>

/* The library's lock, and what several modules read under it: kept here, with the lock, since
 * no one module owns it (inject.c writes exiting, captures and graph_open; setup.c and share.c
 * read them). */
typedef struct inject_shared {
    pthread_mutex_t lock; /* the callbacks' (inject.c), the early set-up's start (setup.c), the watcher's (share.c) */
    /* an early set-up's end (setup.c's early_done) and the early set-ups' figures (stats.c): the
     * early set-up never takes au_g.lock after it started */
    pthread_mutex_t early_lock;
    int exiting;    /* exit handlers are running: callbacks do nothing */
    int captures;   /* stream captures in progress in this process */
    int graph_open; /* a graph launch's range is open (inject.c's graph_owner launched it) */
} inject_shared;

extern inject_shared au_g;

/* The process's id and name and the counters file (ATOMUTIL_COUNTERS_FILE, O_APPEND; a process
 * started without atomutil-profile writes the header itself): once, at InitializeInjection. */
void au_output_open(void);
void au_output_close(void); /* at exit */
long au_pid(void);
const char *au_proc_name(void);

/* Writes all of buf to the counters file (nothing once it is closed). */
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
