/*
 * stats.h - the injection library's timers and counters: what its callbacks, the collector and the
 * early set-ups cost, written at exit as the timing lines of profile/import/cf_timing.def
 * (docs/cli.md, "Timing").  Each module adds to them; none reads another's.
 */
#ifndef ATOMUTIL_INJECT_STATS_H
#define ATOMUTIL_INJECT_STATS_H

#include <stddef.h>

/* Seconds, added with au_g.lock held (the early set-ups' with au_g.early_lock held). */
typedef enum {
    AU_T_LAUNCH,      /* in the driver-API callbacks (module loads: au_cubin_load_seconds) */
    AU_T_FLUSH,       /* ... of which decoding and evaluating (range.c) */
    AU_T_SWITCH,      /* ... counter-set switches (range.c) */
    AU_T_CODE,        /* ... keeping the kernels' code (cubins.c, from range.c) */
    AU_T_DECODE,      /* AU_T_FLUSH's parts (range.c) */
    AU_T_EVAL,        /* ... */
    AU_T_REINIT,      /* ... */
    AU_T_WRITE,       /* ... */
    AU_T_DRIVER,      /* inside measured launches' driver calls (between our callbacks, inject.c) */
    AU_T_REPLAYED,    /* ... of which launches replayed (a counter set of several passes) */
    AU_T_ENTER,       /* in the kernel-launch callbacks at entry (inject.c) */
    AU_T_EXIT,        /* ... and at exit */
    AU_T_SETS,        /* the range profiler's enables (range.c): the sets' host configuration */
    AU_T_ENABLE,      /* ... in Enable */
    AU_T_CONFIG,      /* ... configuring (counter-data image and SetConfig) */
    AU_T_START,       /* ... starting */
    AU_T_DISABLE,     /* ... in Disable */
    AU_T_LAUNCH_WAIT, /* launches waiting for another thread's launch in their context (inject.c) */
    AU_T_EARLY,       /* early set-ups, beside the program (au_g.early_lock) */
    AU_T_EARLY_WAIT,  /* launches, destructions and the exit waiting for them (au_g.early_lock) */
    AU_NTIMERS
} au_timer;

/* Counts, with the same locks. */
typedef enum {
    AU_N_MEASURED,             /* launches measured (rows written, range.c) */
    AU_N_SET_SWITCHES,         /* counter-set switches (disable and enable, range.c) */
    AU_N_SET_KEPT,             /* launches without clusters measured with the cluster set (quiet kernels) */
    AU_N_REPLAYED,             /* launches replayed: measured with a set of several passes (inject.c) */
    AU_N_ENABLES,              /* the range profiler's enables (range.c) */
    AU_N_DISABLES,             /* ... and disables */
    AU_N_LAUNCH_WAITS,         /* launches that waited for another thread's launch in their context */
    AU_N_LAUNCH_WAIT_TIMEOUTS, /* ... and went on after AU_LAUNCH_WAIT_S (inject.c) */
    AU_N_EARLY_SETUPS,         /* early set-ups made (au_g.early_lock) */
    AU_NCOUNTS
} au_count;

void au_stats_add(au_timer which, double seconds);
/* One more; the count before. */
long long au_stats_count(au_count which);

/* The cubins kept for the kernels' code (cubins.c), for the timing lines. */
typedef struct au_stats_modules {
    size_t kept, bytes, not_kept;
    const char *literal; /* -k's text that the modules kept name (au_select_literal), or NULL */
} au_stats_modules;

/* The exit's timing lines (with au_g.lock held): t_loads seconds in the module-load callback;
 * modules NULL without ATOMUTIL_CUBIN_DIR. */
void au_stats_write_timing(double t_loads, const au_stats_modules *modules);

#endif
