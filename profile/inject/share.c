/*
 * share.c - one GPU's counters for several profiled processes (a program's CUDA children, or two
 * atomutil runs on one GPU).  Measured on an H100 with a standalone probe (its findings in
 * docs/live-profiling.md): a process's range profiler holds the GPU's counters from its first
 * Start until Disable; meanwhile another process's Start fails with CUPTI_ERROR_HARDWARE_BUSY.
 * Enabled-but-not-started profilers do not block each other, and a Stop alone does not release.
 *
 * So the processes of one user take turns, through two lock files per GPU (named by its UUID, in
 * $TMPDIR/atomutil-<uid>/; flock locks, released by the kernel when a process dies):
 *   gpu-<uuid>.lock   held (exclusive) by the process whose profiler may run on that GPU;
 *   gpu-<uuid>.wait   held (shared) by every process waiting for it.
 * A process takes the lock before its first Start on the GPU and keeps it while it is alone.  When
 * someone waits, it gives it up (flushes its launches' records and disables its profilers there):
 * at the end of a launch once it has held the lock for AU_SHARE_MIN_HOLD_S (a handover costs about
 * 0.15 s: Disable 12 ms, the next Start 133-139 ms), or from a watcher thread once it has launched
 * nothing for AU_SHARE_IDLE_S (a parent that waits for its children launches nothing) and no
 * launch of its own is in flight there; then it leaves the lock to the waiter for up to
 * AU_SHARE_YIELD_S before trying again.  A waiter waits at most AU_SHARE_MAX_WAIT_S; then it stops
 * measuring on that GPU and says so.  A single
 * process pays one flock() per launch.
 */
#include "share.h"

#include "base.h"
#include "range.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AU_SHARE_MIN_HOLD_S 1.0
#define AU_SHARE_IDLE_S     0.02     /* no launch for this long: the holder is idle */
#define AU_SHARE_YIELD_S    0.1      /* after giving the lock up, how long to leave it to a waiter */
#define AU_SHARE_POLL_NS    2000000L /* a waiter's poll of the lock: 2 ms */
#define AU_SHARE_WATCH_NS   5000000L /* the watcher's period: 5 ms */

/* One GPU's counters as shared with other profiled processes. */
#define AU_INJECT_MAX_DEVS 64
typedef struct share_dev {
    int tried;     /* the lock files were looked for */
    int lfd, wfd;  /* gpu-<uuid>.lock and .wait, -1 where sharing is not possible */
    int held;      /* this process holds the lock */
    int acquiring; /* a thread of this process waits for it */
    int gave_up;   /* a wait ran out: this process measures nothing more on the GPU */
    int waited;    /* ... at least once (said so) */
    int yielded;   /* the lock was given up to a waiter: let it take it first */
    double since;  /* when it was taken */
    double active; /* when this process last launched there (or took the lock) */
    double t_wait; /* seconds spent waiting */
    long long handovers, timeouts;
} share_dev;

static share_dev share[AU_INJECT_MAX_DEVS]; /* by device ordinal */
static int watcher_started;

static void nap(long ns)
{
    struct timespec t = {0, ns};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* Sleeps ns without au_g.lock, so that this process's other threads and its watcher go on. */
static void nap_unlocked(long ns)
{
    pthread_mutex_unlock(&au_g.lock);
    nap(ns);
    pthread_mutex_lock(&au_g.lock);
}

/* Opens the lock files of c's GPU once; 0 if sharing is not possible there (the process then
 * behaves as before: a busy GPU is reported by the Start that fails). */
static int open_files(share_dev *d, CUdevice dev)
{
    if (d->tried)
        return d->lfd >= 0;
    d->tried = 1;
    d->lfd = d->wfd = -1;
    CUuuid u;
    if (cuDeviceGetUuid(&u, dev) != CUDA_SUCCESS)
        return 0;
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/atomutil-%ld", tmp && *tmp ? tmp : "/tmp", (long)getuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return 0;
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
        return 0; /* not ours: never lock files in someone else's directory */
    char hex[33];
    for (int i = 0; i < 16; ++i)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)u.bytes[i]);
    snprintf(path, sizeof path, "%s/gpu-%s.lock", dir, hex);
    d->lfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    snprintf(path, sizeof path, "%s/gpu-%s.wait", dir, hex);
    d->wfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (d->lfd < 0 || d->wfd < 0) {
        if (d->lfd >= 0)
            close(d->lfd);
        if (d->wfd >= 0)
            close(d->wfd);
        d->lfd = d->wfd = -1;
        return 0;
    }
    return 1;
}

static share_dev *dev_of(const ctx_state *c)
{
    return c->dev >= 0 && c->dev < AU_INJECT_MAX_DEVS ? &share[c->dev] : NULL;
}

/* Another process waits for this GPU's counters. */
static int someone_waits(share_dev *d)
{
    if (flock(d->wfd, LOCK_EX | LOCK_NB) == 0) {
        flock(d->wfd, LOCK_UN);
        return 0;
    }
    return errno == EWOULDBLOCK;
}

/* A launch or a graph of this process is in flight on GPU dev, a context's early set-up there
 * holds the lock (setup.c), or a capture runs (no profiler call may synchronize then): the
 * lock cannot be given up now. */
static int busy(CUdevice dev)
{
    if (au_g.captures > 0 || au_g.graph_open)
        return 1;
    for (ctx_state *c = au_ctx_first(); c; c = c->next)
        if (c->dev == dev && (c->inflight > 0 || c->in_graph || au_ctx_early(c)))
            return 1;
    return 0;
}

/* Gives GPU dev's counters up: every profiler of this process there is flushed and disabled (the
 * next launch enables it again, after taking the lock). */
static void release(CUdevice dev, int make_current)
{
    share_dev *d = &share[dev];
    for (ctx_state *c = au_ctx_first(); c; c = c->next) {
        if (c->dev != dev || !c->enabled || c->failed)
            continue;
        CUcontext prev = NULL;
        int pushed = make_current && cuCtxPushCurrent(c->ctx) == CUDA_SUCCESS;
        au_range_disable(c);
        if (pushed)
            cuCtxPopCurrent(&prev);
    }
    flock(d->lfd, LOCK_UN);
    d->held = 0;
    d->yielded = 1;
    d->handovers++;
}

static void *watcher(void *arg)
{
    (void)arg;
    for (;;) {
        nap(AU_SHARE_WATCH_NS);
        pthread_mutex_lock(&au_g.lock);
        if (au_g.exiting) {
            pthread_mutex_unlock(&au_g.lock);
            return NULL;
        }
        for (int dev = 0; dev < AU_INJECT_MAX_DEVS; ++dev) {
            share_dev *d = &share[dev];
            double t = au_now();
            if (d->held && (t - d->active >= AU_SHARE_IDLE_S || t - d->since >= AU_SHARE_MIN_HOLD_S) && !busy(dev) &&
                someone_waits(d))
                release(dev, 1);
        }
        pthread_mutex_unlock(&au_g.lock);
    }
}

/* Takes d's lock if it is free now; 0 if taken. */
static int take(share_dev *d)
{
    if (flock(d->lfd, LOCK_EX | LOCK_NB) != 0)
        return -1;
    d->held = 1;
    d->since = d->active = au_now();
    return 0;
}

static void start_watcher(void)
{
    if (watcher_started)
        return;
    watcher_started = au_spawn_detached(watcher, NULL) == 0;
}

int au_share_try(ctx_state *c)
{
    share_dev *d = dev_of(c);
    if (!d)
        return 0;
    if (d->gave_up || d->acquiring || d->yielded)
        return -1;
    if (d->held || !open_files(d, c->dev))
        return 0;
    start_watcher();
    return take(d);
}

int au_share_acquire(ctx_state *c)
{
    share_dev *d = dev_of(c);
    if (!d)
        return 0;
    if (d->gave_up)
        return -1;
    /* another thread of this process is waiting for the same GPU: wait with it */
    while (d->acquiring && !au_g.exiting) {
        nap_unlocked(AU_SHARE_POLL_NS);
    }
    if (d->held || !open_files(d, c->dev))
        return 0;
    start_watcher();
    if (d->yielded) {
        /* given up to a waiter: let it take the lock before trying again (waiters poll every 2 ms;
         * without this pause the next launch of a busy program took the lock back at once, every
         * time, and the waiter waited for its whole run, measured) */
        d->yielded = 0;
        d->acquiring = 1;
        double t0 = au_now();
        while (!au_g.exiting && au_now() - t0 < AU_SHARE_YIELD_S) {
            if (flock(d->lfd, LOCK_EX | LOCK_NB) != 0)
                break; /* taken */
            flock(d->lfd, LOCK_UN);
            nap_unlocked(AU_SHARE_POLL_NS / 2);
        }
        d->acquiring = 0;
        if (au_g.exiting || c->failed)
            return -1;
    }
    if (take(d) == 0)
        return 0;
    /* held by another process: wait as a waiter, without au_g.lock (this process's other threads
     * and its watcher go on) */
    double t0 = au_now();
    if (!d->waited)
        au_diag(AU_CF_INFO, "sharing: device %d's counters are held by another profiled process: waiting for them",
                (int)c->dev);
    d->waited = 1;
    d->acquiring = 1;
    while (flock(d->wfd, LOCK_SH) != 0 && errno == EINTR)
        ;
    int rc = -1;
    for (;;) {
        nap_unlocked(AU_SHARE_POLL_NS);
        if (au_g.exiting || c->failed)
            break;
        if (take(d) == 0) {
            rc = 0;
            break;
        }
        if (au_now() - t0 > AU_SHARE_MAX_WAIT_S) {
            /* the holder does not give them up (a launch of its own that never ends, or a program
             * that waits for this one inside a launch): rather than wait again at every launch,
             * this process measures nothing more on the GPU */
            d->timeouts++;
            d->gave_up = 1;
            au_diag(AU_CF_WARNING,
                    "sharing: waited %.0f s for device %d's counters (another profiled process holds "
                    "them): launches of process %ld on this device are not measured from now on",
                    AU_SHARE_MAX_WAIT_S, (int)c->dev, au_pid());
            break;
        }
    }
    flock(d->wfd, LOCK_UN);
    d->acquiring = 0;
    d->t_wait += au_now() - t0;
    return rc;
}

void au_share_launch_done(ctx_state *c)
{
    share_dev *d = dev_of(c);
    if (d)
        d->active = au_now();
    if (!d || !d->held || d->active - d->since < AU_SHARE_MIN_HOLD_S || busy(c->dev) || !someone_waits(d))
        return;
    release(c->dev, 0);
}

void au_share_report(void)
{
    for (int dev = 0; dev < AU_INJECT_MAX_DEVS; ++dev) {
        share_dev *d = &share[dev];
        if (d->waited || d->handovers)
            au_diag(AU_CF_INFO,
                    "sharing: device %d: %.3f s waiting for its counters, %lld times given to another "
                    "process, %lld waits given up",
                    dev, d->t_wait, d->handovers, d->timeouts);
        if (d->held) {
            flock(d->lfd, LOCK_UN);
            d->held = 0;
        }
    }
}
