/*
 * setup.c - a context's set-up for collection, beside the program or at its first measured launch.
 *
 * Setting a context up for collection costs about half a second on an H100, most of it in three
 * CUPTI calls: the profiler's initialization (0.07-0.17 s), the counter-availability query that
 * the counter sets' configurations need (0.12-0.13 s) and the first Start after Enable (0.14-0.20 s)
 * (docs/performance.md, "Scale").  Made at a context's first measured launch, all of it lands on
 * the program's path.  So when a context is created, a thread of the library makes the first two
 * ("early set-up") while the program goes on: the profiler's initialization, the context's
 * description and chip, and, if the GPU's lock (share.c) is free now, the standard counter set's
 * configuration.  The context is listed meanwhile, marked early; a measured launch into it waits
 * for the set-up (unmeasured ones do not), and so do the context's destruction and the exit
 * handler, each keeping au_g.lock, which the set-up does not take once started.  The Start stays
 * with the first measured launch: made early (with au_g.lock, so that no stream capture begins
 * meanwhile), it held other threads up for 0.15 s, and tests/hostile/graphs.sh lost a graph
 * launch that came while its other thread was still capturing.
 * With ATOMUTIL_EARLY_SETUP=off, or for a context whose creation the library did not see, all of
 * it is made at the first measured launch.
 */
#include "setup.h"

#include "base.h"
#include "range.h"
#include "share.h"
#include "stats.h"

#include <cupti_profiler_target.h> /* cuptiProfilerInitialize, cuptiProfilerDeviceSupported */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a launch, a context's destruction or the exit handler waits for an early set-up (a
 * CUPTI call that never returns must not hang the program: the context is then not measured). */
#define AU_EARLY_WAIT_S 30

/* The CUPTI profiler's initialization, made once per process. */
enum { AU_PROFILER_NO = 0, AU_PROFILER_YES = 1, AU_PROFILER_STARTING = 2 };
static int profiler_initialized; /* AU_PROFILER_* (atomic: an early set-up writes it without au_g.lock) */
static int early;                /* set contexts up when they are created (ATOMUTIL_EARLY_SETUP) */
/* signalled under au_g.early_lock when an early set-up ends (the early set-up never takes
 * au_g.lock after it started) */
static pthread_cond_t early_done = PTHREAD_COND_INITIALIZER;

void au_ctx_setup_init(void)
{
    const char *es = au_cf_getenv(AU_ENV_EARLY_SETUP);
    early = !(es && strcmp(es, "off") == 0);
}

/* A new entry for ctx with its device (cheap driver calls, so that share.c's readers of c->dev
 * never race with the set-up); not yet listed. */
static ctx_state *new_ctx(CUcontext ctx)
{
    ctx_state *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ctx = ctx;
    if (cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {
        cuCtxGetDevice(&c->dev);
        CUcontext dummy;
        cuCtxPopCurrent(&dummy);
    }
    return c;
}

/* Why device c cannot be profiled, NULL if it can (or if CUPTI cannot say). */
static const char *unsupported(const ctx_state *c)
{
    CUpti_Profiler_DeviceSupported_Params ds = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    ds.cuDevice = c->dev;
    ds.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (cuptiProfilerDeviceSupported(&ds) != CUPTI_SUCCESS || ds.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return NULL;
    return ds.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
               ? "architecture (needs compute capability 7.5 or newer)"
           : ds.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "virtualized GPU (vGPU) without profiling enabled"
           : ds.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "confidential computing mode"
           : ds.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED                 ? "crypto-mining processor"
           : ds.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED                 ? "WSL"
           : ds.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED                 ? "SLI"
                                                                              : "configuration";
}

/* A context's set-up: the profiler's initialization (init: this call makes it), the context's
 * description, the collector's set-up and, with configure, its preparation (early, with the GPU's
 * lock held).  Early, it touches only c's own fields, which nobody reads before c->early is 0;
 * -1: c cannot be measured. */
static int prepare(ctx_state *c, int init, int configure)
{
    double t0 = au_now();
    if (init) {
        /* not in InitializeInjection: the driver is not ready there (CUPTI_ERROR_UNKNOWN) */
        CUpti_Profiler_Initialize_Params pi = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUPTI_CHECK(cuptiProfilerInitialize(&pi), return -1);
    }
    cuptiGetContextId(c->ctx, &c->ctx_id);
    cuDeviceGetName(c->dev_name, sizeof c->dev_name, c->dev);
    cuDeviceGetAttribute(&c->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev);
    cuDeviceGetAttribute(&c->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev);
    cuDeviceGetAttribute(&c->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev);
    const char *why = unsupported(c);
    if (why) {
        au_error(AU_CF_E_UNSUPPORTED, "device %d (%s) cannot be profiled: %s", (int)c->dev, c->dev_name, why);
        return -1;
    }
    if (au_range_setup(c) != 0)
        return -1;
    if (configure)
        au_range_prepare(c); /* what fails here is made again, and reported, at the first enable */
    au_cf_timing t = {.rec = AU_CF_REC_SETUP};
    t.v[AU_CF_F_SETUP_context] = c->ctx_id;
    t.v[AU_CF_F_SETUP_s] = au_now() - t0;
    t.v[AU_CF_F_SETUP_beside] = c->early != 0;
    au_timing(&t);
    return 0;
}

/* Waits until pred() holds or AU_EARLY_WAIT_S passes; 0 if it holds.  The caller keeps au_g.lock:
 * an early set-up never takes it once started, and releasing it here would let another thread
 * begin a stream capture (which forbids what the caller does next) or change what it checked. */
static int wait_until(int (*pred)(const ctx_state *), const ctx_state *c)
{
    if (pred(c))
        return 0;
    double t0 = au_now();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += AU_EARLY_WAIT_S;
    pthread_mutex_lock(&au_g.early_lock);
    while (!pred(c))
        if (pthread_cond_timedwait(&early_done, &au_g.early_lock, &until) == ETIMEDOUT)
            break;
    au_stats_add(AU_T_EARLY_WAIT, au_now() - t0);
    pthread_mutex_unlock(&au_g.early_lock);
    return pred(c) ? 0 : -1;
}

static int profiler_ready(const ctx_state *c)
{
    (void)c;
    return __atomic_load_n(&profiler_initialized, __ATOMIC_ACQUIRE) != AU_PROFILER_STARTING;
}

static int ctx_ready(const ctx_state *c)
{
    return !au_ctx_early(c);
}

int au_ctx_wait_early(ctx_state *c)
{
    if (!c || c->abandoned)
        return -1;
    if (wait_until(ctx_ready, c) == 0)
        return 0;
    /* the early set-up hangs in a CUPTI call: this context is given up */
    au_diag(AU_CF_WARNING, "the set-up of context %u took over %d s: its launches are not measured", c->ctx_id,
            AU_EARLY_WAIT_S);
    c->abandoned = 1;
    return -1;
}

void au_ctx_wait_all_early(void)
{
    for (ctx_state *c = au_ctx_first(); c; c = c->next)
        if (!c->abandoned)
            au_ctx_wait_early(c);
}

ctx_state *au_ctx_get(CUcontext ctx)
{
    ctx_state *c = au_ctx_find(ctx);
    if (c)
        return au_ctx_wait_early(c) == 0 ? c : NULL;
    if (wait_until(profiler_ready, NULL) != 0)
        return NULL;
    if (!(c = new_ctx(ctx)))
        return NULL;
    au_ctx_publish(c);
    int init = profiler_initialized == AU_PROFILER_NO;
    if (prepare(c, init, 0) != 0)
        c->failed = 1;
    else if (init)
        profiler_initialized = AU_PROFILER_YES;
    return c;
}

/* The early set-up's thread (the header says what it does). */
static void *early_setup(void *arg)
{
    CUcontext ctx = arg;
    ctx_state *c = new_ctx(ctx);
    if (!c)
        return NULL;
    /* current on this thread for CUPTI calls that act on the current context */
    int pushed = cuCtxPushCurrent(ctx) == CUDA_SUCCESS;
    pthread_mutex_lock(&au_g.lock);
    if (au_g.exiting || au_ctx_find(ctx) || profiler_initialized == AU_PROFILER_STARTING) {
        /* exiting, set up already, or another context's early set-up initializes the profiler:
         * this one is made at its first measured launch */
        pthread_mutex_unlock(&au_g.lock);
        free(c);
        goto out;
    }
    int init = profiler_initialized == AU_PROFILER_NO;
    if (init)
        __atomic_store_n(&profiler_initialized, AU_PROFILER_STARTING, __ATOMIC_RELEASE);
    c->early = 1;
    /* the counter-availability query needs the GPU's counters: one made while another process
     * collects fails, and makes that process's queries fail (share.c), so only with the lock */
    int counters = au_share_try(c) == 0;
    au_ctx_publish(c);
    pthread_mutex_unlock(&au_g.lock);

    double t0 = au_now();
    int rc = prepare(c, init, counters);

    pthread_mutex_lock(&au_g.early_lock);
    if (init)
        __atomic_store_n(&profiler_initialized, rc == 0 ? AU_PROFILER_YES : AU_PROFILER_NO, __ATOMIC_RELEASE);
    c->failed = rc != 0;
    au_stats_add(AU_T_EARLY, au_now() - t0);
    au_stats_count(AU_N_EARLY_SETUPS);
    __atomic_store_n(&c->early, 0, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&early_done);
    pthread_mutex_unlock(&au_g.early_lock);
out:
    if (pushed) {
        CUcontext prev;
        cuCtxPopCurrent(&prev);
    }
    return NULL;
}

void au_ctx_created(CUcontext ctx)
{
    if (!ctx)
        return;
    /* a destroyed context's handle can come back (cudaDeviceReset, then the next CUDA call makes
     * the device's primary context again): the old entry, failed at its destruction, is retired */
    au_ctx_retire(ctx);
    if (!early)
        return;
    /* if no thread can be made, the set-up is made at the first measured launch */
    au_spawn_detached(early_setup, ctx);
}
