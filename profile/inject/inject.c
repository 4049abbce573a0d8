/*
 * inject.c - atomutil's CUPTI injection library (libatomutil_inject.so): entry point and callbacks,
 * which decide what each launch, graph launch and stream capture does.  What is collected is the
 * collector's business (range.c: the model's counters per launch); CODING.md lists the modules.
 *
 * atomutil-profile sets CUDA_INJECTION64_PATH to this library; the CUDA driver loads it into the
 * unmodified target at cuInit and calls InitializeInjection, its only exported symbol.  Each
 * launch is recorded at its driver call's entry and written out when the call returns, so that a
 * crash or kill of the target loses at most the launch in flight.  Nothing here calls exit() or
 * prints into the target's output: problems become '==ATOMUTIL==' lines in the output file, which
 * atomutil-profile relays.
 *
 * Environment: profile/import/cf_env.def lists what atomutil-profile passes (docs/live-profiling.md).
 */
#include "base.h"
#include "cubins.h"
#include "graphs.h"
#include "kernels.h"
#include "range.h"
#include "select.h"
#include "setup.h"
#include "share.h"
#include "stats.h"

#include "atomutil/util.h"

#include "counters_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* The callbacks' own state, with au_g.lock (base.h holds what other modules read too). */
static struct {
    int initialized;
    CUpti_SubscriberHandle sub;
    long long next_id;
    int graphs;                 /* measure graph launches (ATOMUTIL_GRAPHS=off: not) */
    pthread_t graph_owner;      /* the thread whose graph launch has its range open (au_g.graph_open) */
    pthread_cond_t graph_done;  /* signalled when it closes */
    pthread_cond_t launch_done; /* signalled when a measured launch's call returns (wait_launches) */
    int atexit_late;            /* at_exit registered again at the first launch */
    long long graph_skipped;    /* graph launches, not measured */
    long long graph_measured;   /* graph launches measured as one range each */
    long long capture_skipped;  /* launches that ran while another stream was being captured */
    long long share_skipped;    /* launches run unmeasured after waiting too long for the counters */
} inj = {.graph_done = PTHREAD_COND_INITIALIZER, .launch_done = PTHREAD_COND_INITIALIZER};

/* ------------------------------------------------------------------ contexts */

/* Disables the collector on c; launches still pending were not measured. */
static void disable_ctx(ctx_state *c)
{
    if (c->enabled)
        au_range_disable(c);
    if (c->npend)
        au_diag(AU_CF_WARNING, "%zu launches on device %d were not measured", c->npend, (int)c->dev);
    au_free_pending(c, c->npend);
}

/* ------------------------------------------------------------------ callbacks */

/* One attribute of a launched function.  The CUDA runtime launches with a CUkernel handle in the
 * CUfunction slot, which cuFuncGetAttribute refuses (CUDA_ERROR_INVALID_HANDLE, measured on CUDA
 * 13.0): then the kernel's attribute on the current context's device. */
static int func_attr(CUfunction f, CUfunction_attribute a, int *v)
{
    if (cuFuncGetAttribute(v, a, f) == CUDA_SUCCESS)
        return 0;
    CUdevice dev;
    return cuCtxGetDevice(&dev) == CUDA_SUCCESS && cuKernelGetAttribute(v, a, (CUkernel)f, dev) == CUDA_SUCCESS ? 0
                                                                                                                : -1;
}

/* Blocks per cluster a kernel was compiled for (__cluster_dims__), 0 when none. */
static unsigned func_cluster(CUfunction f)
{
    int x = 0, y = 0, z = 0;
    if (!f || func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, &x) != 0 ||
        func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, &y) != 0 ||
        func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, &z) != 0 || x <= 0)
        return 0;
    return (unsigned)x * (unsigned)(y > 0 ? y : 1) * (unsigned)(z > 0 ? z : 1);
}

/* Grid, block and stream of a launch from the driver call's parameters, and its cluster where the
 * launch gives one (the kernel's compiled-in cluster is asked for later, of measured launches
 * only: three driver calls); 0 if not a kernel launch. */
static int launch_params(const CUpti_CallbackData *cb, CUpti_CallbackId id, pending_launch *l, CUstream *stream)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = cb->functionParams;
        l->func = p->f;
        l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
        l->block[0] = p->blockDimX, l->block[1] = p->blockDimY, l->block[2] = p->blockDimZ;
        *stream = p->hStream;
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = cb->functionParams;
        l->func = p->f;
        l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
        l->block[0] = p->blockDimX, l->block[1] = p->blockDimY, l->block[2] = p->blockDimZ;
        *stream = p->hStream;
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = cb->functionParams;
        l->func = p->f;
        if (p->config) {
            l->grid[0] = p->config->gridDimX, l->grid[1] = p->config->gridDimY, l->grid[2] = p->config->gridDimZ;
            l->block[0] = p->config->blockDimX, l->block[1] = p->config->blockDimY, l->block[2] = p->config->blockDimZ;
            *stream = p->config->hStream;
            for (unsigned i = 0; p->config->attrs && i < p->config->numAttrs; ++i)
                if (p->config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
                    unsigned x = p->config->attrs[i].value.clusterDim.x, y = p->config->attrs[i].value.clusterDim.y,
                             z = p->config->attrs[i].value.clusterDim.z;
                    l->cluster = (x ? x : 1) * (y ? y : 1) * (z ? z : 1);
                }
        }
        return 1;
    }
    default: return 0;
    }
}

static int stream_capturing(CUstream s)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    return cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

static void at_exit(void);
static void pause_all(void);

/* The context of the launch this thread is inside (between its launch call's enter and exit
 * callbacks), NULL outside one: ctx_state.inflight counts such launches for share.c. */
static __thread ctx_state *tl_in_launch;
static __thread double tl_driver_t0; /* when this thread's measured launch call went to the driver */
static __thread size_t tl_passes;    /* ... and the passes its counter set takes (> 1: replayed) */

/* A measured launch's counters are decoded by CUPTI inside that launch's driver call (auto range,
 * kernel replay), into its context's counter-data image, after au_g.lock was released.  Another
 * thread's measured launch in the same context, or a flush, set switch or stop made meanwhile,
 * corrupted that image: about 1 run in 12 of 8 threads launching crashed in
 * NVPW_CUDA_Profiler_DecodeCounters (docs/reliability.md, "The multi-thread crash").  So no
 * profiler call and no second measured launch is made in a context while a launch of another
 * thread is in flight there: the caller waits (au_g.lock released).  Auto range serializes the
 * kernels anyway, so this costs the program almost nothing.  A launch that is still in flight after
 * AU_LAUNCH_WAIT_S (a kernel waiting for a kernel of another thread) lets the waiter go on. */
#define AU_LAUNCH_WAIT_S 60

/* Launches of other threads in flight in c (every context when c is NULL). */
static int others_in_flight(const ctx_state *c)
{
    for (const ctx_state *x = c ? c : au_ctx_first(); x; x = c ? NULL : x->next)
        if (x->inflight - (tl_in_launch == x) > 0)
            return 1;
    return 0;
}

static void wait_launches(const ctx_state *c)
{
    if (!others_in_flight(c))
        return;
    double t0 = au_now();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += AU_LAUNCH_WAIT_S;
    au_stats_count(AU_N_LAUNCH_WAITS);
    while (others_in_flight(c) && !au_g.exiting)
        if (pthread_cond_timedwait(&inj.launch_done, &au_g.lock, &until) == ETIMEDOUT) {
            if (au_stats_count(AU_N_LAUNCH_WAIT_TIMEOUTS) == 0)
                au_diag(AU_CF_WARNING,
                        "a launch waited %d s for another thread's launch in its context and went on: "
                        "launches running at the same time may be measured wrongly",
                        AU_LAUNCH_WAIT_S);
            break;
        }
    au_stats_add(AU_T_LAUNCH_WAIT, au_now() - t0);
}

/* An unselected launch runs with c's profiler stopped, or disabled once nothing more will be
 * selected (select.c): auto range would otherwise make it a range. */
static void run_unmeasured(ctx_state *c)
{
    if (!c || au_ctx_early(c) || c->failed || !c->enabled)
        return;
    wait_launches(c);
    if (!c->enabled || c->in_graph)
        return;
    if (au_select_exhausted())
        disable_ctx(c);
    else
        au_range_pause(c);
}

/* The counter set of a launch, from its clusters and its kernel's code (docs/counters.md, "Counter
 * sets by kernel").  With clusters: the cluster set, in one pass, for every launch (a launch that
 * sent nothing says nothing of the next: the traffic probe's one kernel, once its barrier-only
 * launch sent it to the standard set, read its remote atomics at 5-47 % instead of about 100 %),
 * and where the code has generic atomics, which may go to the SM's own shared memory or to
 * another's, the dsmem set, replayed, which counts both exactly.  Without clusters, code with
 * generic atomics that can land in shared memory gets the generic set, which counts their
 * instructions (docs/counters.md, "The generic counter set"). */
static int launch_set(const void *func, unsigned cluster)
{
    int generic = au_cubin_generic(func);
    if (cluster > 1)
        return generic ? AU_INJECT_SET_DSMEM : AU_INJECT_SET_CLUSTER;
    return generic ? AU_INJECT_SET_GENERIC : AU_INJECT_SET_STD;
}

/* Kernels launched unmeasured since c's last measured launch may still run on other streams, and a
 * range counts everything the GPU runs: the context is synchronized before the next measured
 * launch (auto range synchronizes after each measured kernel, not before), with au_g.lock released,
 * since such a kernel may wait for another thread's launch.  0 to go on measuring. */
static int settle_unmeasured(ctx_state *c)
{
    c->unmeasured = 0;
    pthread_mutex_unlock(&au_g.lock);
    cuCtxSynchronize();
    pthread_mutex_lock(&au_g.lock);
    wait_launches(c); /* another thread may have started a measured launch meanwhile */
    return au_g.exiting || c->failed || au_g.captures > 0 || c->in_graph ? -1 : 0;
}

static void on_launch_enter(const CUpti_CallbackData *cb, CUpti_CallbackId id)
{
    pending_launch l;
    CUstream stream = NULL;
    memset(&l, 0, sizeof l);
    if (!launch_params(cb, id, &l, &stream))
        return;
    /* selected first, so that an unselected launch costs a table lookup (a launch made while a
     * stream is captured is not run: it is not counted) */
    if (au_g.captures == 0 && !au_select_launch(l.func, cb->symbolName)) {
        ctx_state *uc = au_ctx_find(cb->context);
        if (uc)
            uc->unmeasured = 1;
        run_unmeasured(uc);
        return;
    }
    ctx_state *wc = au_ctx_find(cb->context);
    if (wc)
        wait_launches(wc); /* everything below is read after the wait */
    /* a launch into a capturing stream is recorded into a graph, not run.  While any capture is in
     * progress nothing here may synchronize (setup, auto range, decoding), or that capture
     * becomes invalid: such launches run unmeasured and are counted. */
    if (au_g.captures > 0 || stream_capturing(stream)) {
        if (!stream_capturing(stream))
            inj.capture_skipped++;
        return;
    }
    ctx_state *gc = au_ctx_find(cb->context);
    if (gc && gc->in_graph) { /* another thread launched while a graph's range is open */
        inj.capture_skipped++;
        return;
    }
    if (!inj.atexit_late) {
        /* exit handlers run last registered first: registered again now, after the CUDA runtime
         * and driver registered theirs, ours stops all collection before they tear CUDA down
         * (another thread's exit() while this one launches) */
        inj.atexit_late = 1;
        atexit(at_exit);
    }
    ctx_state *c = au_ctx_get(cb->context);
    if (!c || c->failed)
        return;
    if (c->unmeasured && settle_unmeasured(c) != 0)
        return;
    if (!l.cluster)
        l.cluster = func_cluster((CUfunction)l.func);
    if (!l.cluster)
        l.cluster = 1;
    char *kernel = au_kernel_name(l.func, cb->symbolName);
    if (!kernel)
        return;
    l.set = launch_set(l.func, l.cluster);
    /* a launch without clusters of a kernel whose measured launches all ran no atomics stays in
     * the set configured when that is the cluster or the generic set: both count shared and
     * generic atomic jobs too, so atomics that appear are still seen (in the cluster set U then
     * gets a range, and the kernel's next launch goes back to its own set); a switch costs about
     * 0.2 s (docs/counters.md).  Not in the dsmem set, whose launches are replayed. */
    int cur = c->enabled ? au_range_current_set(c) : AU_INJECT_SET_STD;
    if (l.set == AU_INJECT_SET_STD && cur != AU_INJECT_SET_STD && cur != AU_INJECT_SET_DSMEM &&
        au_kernel_quiet(l.func)) {
        l.set = cur;
        au_stats_count(AU_N_SET_KEPT);
    }
    /* each context keeps its own collector enabled (several GPUs, several contexts); switching
     * one collector between contexts at every launch crashed two-GPU programs.  Enabling takes
     * the GPU's lock first (share.c), which may wait for another process without au_g.lock: the
     * checks above are made again after it. */
    if (!c->enabled) {
        if (au_share_acquire(c) != 0) {
            inj.share_skipped++;
            free(kernel);
            return;
        }
        if (c->failed || au_g.exiting || au_g.captures > 0 || c->in_graph ||
            (au_g.graph_open && !pthread_equal(inj.graph_owner, pthread_self()))) {
            inj.capture_skipped += !c->failed && !au_g.exiting;
            free(kernel);
            return;
        }
        if (!c->enabled && au_range_enable(c, l.set) != 0) {
            c->failed = 1;
            free(kernel);
            return;
        }
    }
    /* the counter set of this launch: switching stops and restarts the profiler between launches
     * (the dsmem set falls back to the cluster set on a chip that cannot configure it) */
    if (au_range_use_set(c, l.set) != 0 || au_range_resume(c) != 0 ||
        au_grow(&c->pend, &c->cap, c->npend, sizeof *c->pend, 16) != 0) {
        free(kernel);
        return;
    }
    l.set = au_range_current_set(c);
    tl_passes = au_range_passes(c, l.set);
    if (stream)
        cuptiGetStreamId(cb->context, stream, &l.stream_id);
    l.kernel = kernel;
    l.id = inj.next_id++;
    c->pend[c->npend++] = l;
    c->inflight++;
    tl_in_launch = c;
    tl_driver_t0 = au_now();
}

static void on_launch_exit(const CUpti_CallbackData *cb)
{
    ctx_state *c = au_ctx_find(cb->context);
    if (tl_in_launch) { /* this thread's launch call (enter and exit nest on one thread) is over */
        double dt = au_now() - tl_driver_t0;
        au_stats_add(AU_T_DRIVER, dt);
        if (tl_passes > 1) { /* the call ran the kernel once per pass (kernel replay) */
            au_stats_add(AU_T_REPLAYED, dt);
            au_stats_count(AU_N_REPLAYED);
        }
        if (tl_in_launch->inflight > 0)
            tl_in_launch->inflight--;
        tl_in_launch = NULL;
    }
    if (c && !au_ctx_early(c) && !c->failed) {
        /* the launch has run when the call returns (auto range synchronizes);
         * a launch still in flight here (a waiter that went on, wait_launches) flushes later */
        if (c->enabled && c->npend && c->inflight == 0)
            au_range_flush(c);
        au_share_launch_done(c);
    }
    pthread_cond_broadcast(&inj.launch_done);
}

/* The launch's row of a graph launch: the graph's number and kernel count as its name, the first
 * kernel node's shape; and a "graph:" line naming the kernels (for their code, docs/opcodes.md). */
static void graph_launch_enter(const CUpti_CallbackData *cb)
{
    const cuGraphLaunch_params *p = cb->functionParams;
    if (!p)
        return;
    const au_graph_kernels *k = au_graph_find(p->hGraph);
    if (!au_select_graph(p->hGraph, k)) {
        pause_all(); /* auto range during a graph disturbs its kernels */
        return;
    }
    ctx_state *c = au_ctx_get(cb->context);
    if (!c || c->failed)
        return;
    wait_launches(c);
    if (c->failed || au_g.exiting)
        return;
    if (c->in_graph) { /* another thread's graph still open (it waited 60 s): not measured */
        inj.graph_skipped++;
        return;
    }
    pending_launch *l = &c->graph_launch;
    memset(l, 0, sizeof *l);
    char name[160];
    if (k)
        snprintf(name, sizeof name, "graph %lld (%zu kernel nodes)", k->index, k->kernel_nodes);
    else
        snprintf(name, sizeof name, "graph (kernels unknown: instantiated before atomutil attached)");
    if (!(l->kernel = strdup(name)))
        return;
    if (k) {
        memcpy(l->grid, k->grid, sizeof l->grid);
        memcpy(l->block, k->block, sizeof l->block);
    }
    l->cluster = 1;
    if (p->hStream)
        cuptiGetStreamId(cb->context, p->hStream, &l->stream_id);
    if (au_share_acquire(c) != 0 || c->failed || c->in_graph || au_g.graph_open || au_g.captures > 0 || au_g.exiting ||
        au_range_graph_begin(c) != 0) {
        free(l->kernel);
        l->kernel = NULL;
        inj.graph_skipped++;
        return;
    }
    l->id = inj.next_id++;
    /* until the graph has run, other threads' launches wait (wait_for_graph): the range counts
     * everything the context runs, and must hold the graph's kernels only */
    au_g.graph_open = 1;
    inj.graph_owner = pthread_self();
}

static void graph_launch_exit(const CUpti_CallbackData *cb)
{
    const cuGraphLaunch_params *p = cb->functionParams;
    ctx_state *c = au_ctx_find(cb->context);
    if (!c || !c->in_graph || !p)
        return;
    pending_launch l = c->graph_launch;
    memset(&c->graph_launch, 0, sizeof c->graph_launch);
    long long id = l.id;
    au_range_graph_end(c, &l, p->hStream);
    free(l.kernel);
    au_g.graph_open = 0;
    pthread_cond_broadcast(&inj.graph_done);
    inj.graph_measured++;
    au_share_launch_done(c);
    const au_graph_kernels *k = au_graph_find(p->hGraph);
    if (!k || k->n == 0)
        return;
    size_t len = 64;
    for (size_t i = 0; i < k->n; ++i) {
        au_cubin_note_launch(k->names[i]);
        len += strlen(k->names[i]) + 1;
    }
    char *line = malloc(len);
    if (!line)
        return;
    size_t used = (size_t)au_cf_head(line, len, au_pid(), AU_CF_GRAPH); /* 64 bytes hold it and the id */
    used += (size_t)snprintf(line + used, len - used, "%lld", id);
    for (size_t i = 0; i < k->n && used < len; ++i)
        used += (size_t)snprintf(line + used, len - used, " %s", k->names[i]);
    if (used < len - 1) {
        line[used++] = '\n';
        au_write_all(line, used);
    }
    free(line);
}

/* A launch (kernel or graph) from another thread while a graph's range is open waits until the
 * graph has run (au_g.lock is released while waiting); after 60 s it goes on, unmeasured if it
 * lands in that context, so that a graph that never finishes cannot hang the program. */
static void wait_for_graph(void)
{
    if (!au_g.graph_open || pthread_equal(inj.graph_owner, pthread_self()))
        return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    while (au_g.graph_open && !au_g.exiting)
        if (pthread_cond_timedwait(&inj.graph_done, &au_g.lock, &until) != 0)
            break;
}

/* The driver calls the library follows, each once: its kind and CUPTI_DRIVER_TRACE_CBID_<name>. */
#define AU_DRIVER_CALLBACKS(X)                         \
    X(LAUNCH, cuLaunchKernel)                          \
    X(LAUNCH, cuLaunchKernel_ptsz)                     \
    X(LAUNCH, cuLaunchKernelEx)                        \
    X(LAUNCH, cuLaunchKernelEx_ptsz)                   \
    X(LAUNCH, cuLaunchCooperativeKernel)               \
    X(LAUNCH, cuLaunchCooperativeKernel_ptsz)          \
    X(GRAPH_LAUNCH, cuGraphLaunch)                     \
    X(GRAPH_LAUNCH, cuGraphLaunch_ptsz)                \
    X(BEGIN_CAPTURE, cuStreamBeginCapture)             \
    X(BEGIN_CAPTURE, cuStreamBeginCapture_ptsz)        \
    X(BEGIN_CAPTURE, cuStreamBeginCapture_v2)          \
    X(BEGIN_CAPTURE, cuStreamBeginCapture_v2_ptsz)     \
    X(BEGIN_CAPTURE, cuStreamBeginCaptureToGraph)      \
    X(BEGIN_CAPTURE, cuStreamBeginCaptureToGraph_ptsz) \
    X(END_CAPTURE, cuStreamEndCapture)                 \
    X(END_CAPTURE, cuStreamEndCapture_ptsz)            \
    X(INSTANTIATE, cuGraphInstantiate)                 \
    X(INSTANTIATE, cuGraphInstantiate_v2)              \
    X(INSTANTIATE, cuGraphInstantiateWithFlags)        \
    X(INSTANTIATE, cuGraphInstantiateWithParams)       \
    X(INSTANTIATE, cuGraphInstantiateWithParams_ptsz)  \
    X(PROFILER, cuProfilerStart)                       \
    X(PROFILER, cuProfilerStop)

typedef enum {
    CB_OTHER,
    CB_LAUNCH,
    CB_GRAPH_LAUNCH,
    CB_BEGIN_CAPTURE,
    CB_END_CAPTURE,
    CB_INSTANTIATE,
    CB_PROFILER
} cb_kind;

static cb_kind driver_cb_kind(CUpti_CallbackId id)
{
    switch (id) {
#define AU_CB_CASE(kind, name) \
    case CUPTI_DRIVER_TRACE_CBID_##name: return CB_##kind;
        AU_DRIVER_CALLBACKS(AU_CB_CASE)
#undef AU_CB_CASE
    default: return CB_OTHER;
    }
}

/* A launch into a stream being captured: it is recorded into a graph, not run, so its entry
 * callback does nothing, and it waits for no other thread's graph or launch.  Held up, a capture outlasted another thread's graph and
 * that thread's cudaDeviceSynchronize met it (tests/hostile/graphs.sh, the program's error). */
static int into_capture(const CUpti_CallbackData *cb, CUpti_CallbackId id)
{
    pending_launch l;
    CUstream stream = NULL;
    memset(&l, 0, sizeof l);
    return au_g.captures > 0 && launch_params(cb, id, &l, &stream) && stream_capturing(stream);
}

/* Stops collection on every context (before a stream capture or a graph launch). */
static void pause_all(void)
{
    wait_launches(NULL);
    for (ctx_state *c = au_ctx_first(); c; c = c->next)
        if (c->enabled && !c->failed)
            au_range_pause(c);
}

static void CUPTIAPI callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        /* the driver holds a lock of its own here: no au_g.lock (cubins.c) */
        const CUpti_ResourceData *rd = data;
        if (au_cubin_dir() && rd->resourceDescriptor)
            au_cubin_loaded(rd->resourceDescriptor);
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        /* no au_g.lock either: the set-up runs on a thread of its own (setup.c) */
        au_ctx_created(((const CUpti_ResourceData *)data)->context);
        return;
    }
    pthread_mutex_lock(&au_g.lock);
    if (au_g.exiting) { /* the process is ending: no more CUPTI calls from other threads */
        pthread_mutex_unlock(&au_g.lock);
        return;
    }
    double t0 = au_now();
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cb = data;
        cb_kind kind = driver_cb_kind(id);
        int captured = cb->callbackSite == CUPTI_API_ENTER && kind == CB_LAUNCH && into_capture(cb, id);
        if (cb->callbackSite == CUPTI_API_ENTER && kind != CB_INSTANTIATE && kind != CB_BEGIN_CAPTURE &&
            kind != CB_END_CAPTURE && kind != CB_PROFILER && !captured) {
            wait_for_graph();
            if (au_g.exiting) {
                pthread_mutex_unlock(&au_g.lock);
                return;
            }
        }
        if (kind == CB_INSTANTIATE) {
            /* every instantiate call's parameters begin with (CUgraphExec *, CUgraph) */
            const cuGraphInstantiateWithFlags_params *p = cb->functionParams;
            if (cb->callbackSite == CUPTI_API_EXIT && p && p->phGraphExec &&
                *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS)
                au_graph_instantiated(*p->phGraphExec, p->hGraph);
        } else if (kind == CB_BEGIN_CAPTURE) {
            /* stop before the capture starts: once it runs, a synchronization would invalidate it */
            if (cb->callbackSite == CUPTI_API_ENTER) {
                if (au_g.captures == 0)
                    pause_all();
            } else if (*(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS) {
                au_g.captures++;
            }
        } else if (kind == CB_PROFILER) {
            /* --profile-from-start off: measure only between cuProfilerStart and cuProfilerStop */
            if (cb->callbackSite == CUPTI_API_EXIT && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS) {
                int start = id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
                au_select_profiler(start);
                if (!start)
                    pause_all();
            }
        } else if (kind == CB_END_CAPTURE) {
            /* a capture ends at EndCapture whether it succeeded or was invalidated */
            if (cb->callbackSite == CUPTI_API_EXIT && au_g.captures > 0)
                au_g.captures--;
        } else if (kind == CB_GRAPH_LAUNCH) {
            /* the auto-range profiler does not measure graph kernel nodes and disturbs their
             * execution (CUDA 13.0, docs/performance.md): a graph launch is one user range
             * (range.c); with ATOMUTIL_GRAPHS=off and while a stream is being captured, graphs
             * run with collection stopped */
            if (cb->callbackSite == CUPTI_API_ENTER) {
                if (au_g.captures == 0 && inj.graphs)
                    graph_launch_enter(cb);
                else {
                    if (au_g.captures == 0)
                        pause_all();
                    inj.graph_skipped++;
                }
            } else if (au_g.captures == 0) {
                graph_launch_exit(cb);
            }
        } else if (cb->callbackSite == CUPTI_API_ENTER) {
            if (!captured)
                on_launch_enter(cb, id);
            au_stats_add(AU_T_ENTER, au_now() - t0);
        } else {
            on_launch_exit(cb);
            au_stats_add(AU_T_EXIT, au_now() - t0);
        }
    } else if (dom == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        const CUpti_ResourceData *rd = data;
        ctx_state *c = au_ctx_find(rd->context);
        if (c && au_ctx_wait_early(c) == 0) {
            disable_ctx(c);
            /* never enable collection on it again: other threads may still launch into a context
             * that is being destroyed (exit() from one thread of several), and CUPTI calls on it
             * crash the program */
            c->failed = 1;
        }
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API)
        au_stats_add(AU_T_LAUNCH, au_now() - t0);
    pthread_mutex_unlock(&au_g.lock);
}

static void at_exit(void)
{
    pthread_mutex_lock(&au_g.lock);
    if (au_g.exiting) { /* registered twice (see on_launch_enter): the first call did it */
        pthread_mutex_unlock(&au_g.lock);
        return;
    }
    au_g.exiting = 1;
    pthread_cond_broadcast(&inj.graph_done);  /* launches waiting for a graph go on, unmeasured */
    pthread_cond_broadcast(&inj.launch_done); /* ... and those waiting for another thread's launch */
    au_ctx_wait_all_early();                  /* no CUPTI call of an early set-up runs while collection ends */
    for (ctx_state *c = au_ctx_first(); c; c = c->next)
        if (c->enabled || c->npend)
            disable_ctx(c);
    au_share_report();
    au_select_report();
    if (inj.share_skipped)
        au_diag(AU_CF_WARNING,
                "not measured: %lld launches on a GPU whose counters another profiled process held "
                "(a wait of %.0f s ran out)",
                inj.share_skipped, AU_SHARE_MAX_WAIT_S);
    if (inj.graph_skipped)
        au_diag(AU_CF_WARNING, "not measured: %lld CUDA graph launches (graphs run unprofiled)", inj.graph_skipped);
    if (inj.graph_measured)
        au_diag(AU_CF_INFO, "graphs: %lld CUDA graph launches measured, one row each", inj.graph_measured);
    size_t kept, kept_bytes, skipped;
    double t_loads = au_cubin_load_seconds(&kept, &kept_bytes, &skipped);
    au_stats_modules modules = {kept, kept_bytes, skipped, au_select_literal()};
    au_stats_write_timing(t_loads, au_cubin_dir() ? &modules : NULL);
    if (inj.capture_skipped)
        au_diag(AU_CF_WARNING, "not measured: %lld launches made while a stream was being captured",
                inj.capture_skipped);
    au_output_close();
    pthread_mutex_unlock(&au_g.lock);
}

/* ------------------------------------------------------------------ entry */

EXPORT int InitializeInjection(void)
{
    pthread_mutex_lock(&au_g.lock);
    if (inj.initialized) {
        pthread_mutex_unlock(&au_g.lock);
        return 1;
    }
    inj.initialized = 1;
    double t0 = au_now();
    au_output_open();
    au_cubin_init();
    au_select_init();
    au_ctx_setup_init();
    const char *gr = au_cf_getenv(AU_ENV_GRAPHS);
    inj.graphs = !(gr && strcmp(gr, "off") == 0);
    au_range_init();

    CUPTI_CHECK(cuptiSubscribe(&inj.sub, callback, NULL), goto fail);
    CUPTI_CHECK(cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
                goto fail);
    if (au_cubin_dir() && *au_cubin_dir())
        CUPTI_CHECK(cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED),
                    goto fail);
    CUPTI_CHECK(cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
                goto fail);
    static const CUpti_CallbackId launches[] = {
#define AU_CB_ID(kind, name) CUPTI_DRIVER_TRACE_CBID_##name,
        AU_DRIVER_CALLBACKS(AU_CB_ID)
#undef AU_CB_ID
    };
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; ++i)
        CUPTI_CHECK(cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_DRIVER_API, launches[i]), goto fail);
    atexit(at_exit);
    au_diag(AU_CF_INFO, "attached (counters)");
    au_cf_timing t = {.rec = AU_CF_REC_ATTACH};
    t.v[AU_CF_F_ATTACH_s] = au_now() - t0;
    au_timing(&t);
    pthread_mutex_unlock(&au_g.lock);
    return 1;
fail:
    /* the target runs on, unprofiled; atomutil-profile reports the diagnostic */
    pthread_mutex_unlock(&au_g.lock);
    return 1;
}
