/*
 * runner.c - the GPU side of atomutil-calibrate for the ATOMS families (dsmem.c runs the cluster
 * families): opens the device, checks that two blocks of every family kernel fit on one SM, cuts
 * the plan into launches (every SM gets its own list of work items, balanced by predicted cost),
 * launches cooperatively, verifies residency and timing of every item, and redoes rejected ones.
 * CUDA runtime API from C; kernels are in kernels/.
 */
#include "cal.h"
#include "atomutil/util.h"
#include "kernels/cuda_check.h"

#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Launch sizing: about 0.1 s of predicted work per SM and launch keeps the progress bar moving
 * and a failed launch cheap to redo. */
#define CHUNK_CYCLES_PER_SM 2e8
#define CHUNK_MAX_ITEMS     65536
#define MAX_ROUNDS          4     /* measurement rounds per family: the first plus redo rounds */
#define LAUNCH_TRIES        3     /* launches of one chunk before giving up */
#define GO_MARGIN           12000 /* cycles from publishing go to go, two-block passes (doubled per redo round) */
#define SOLO_MARGIN         1500  /* cycles from picking go to go, one-block passes (a __syncthreads away) */
#define TIMEOUT_CYCLES      4000000000LL /* ~2 s: a partner block that has not arrived is not coming */

typedef struct launcher {
    int (*launch)(const au_cal_args *, int);
    int (*occupancy)(int, int *);
} launcher;

static const launcher launchers[] = {
#define AU_FAMILY(name, opcode, kind, wf_per_pass, width, pattern, max_a, cgrid, what) \
    {au_cal_launch_##name, au_cal_occupancy_##name},
#include "atomutil/families.def"
#undef AU_FAMILY
};

struct au_cal_gpu {
    int device;
    au_cal_devinfo info;
    int nsm, block_threads;
    unsigned occupancy_ok; /* families whose two-blocks-per-SM residency was checked */
    size_t cap;            /* items the buffers hold */
    au_cal_item *d_items, *h_items;
    au_cal_slot *d_slots, *h_slots;
    int *d_first, *h_first, *order;
    double *cost;
    unsigned *d_sync, *d_sink;
    long long *d_clocks, *h_clocks;
    double clk_cycles, clk_ns, gpu_seconds;
    long redone[5];
    long long worst_skew;
};

/* The kernel driver's version ("580.159.04": the first dotted number of the NVRM line of
 * /proc/driver/nvidia/version); the CUDA driver API version otherwise. */
static void driver_version(char *out, size_t size)
{
    char line[512];
    int v = 0;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    out[0] = '\0';
    if (f) {
        if (fgets(line, sizeof line, f)) {
            for (char *save = NULL, *tok = strtok_r(line, " \t\n", &save); tok && !out[0];
                 tok = strtok_r(NULL, " \t\n", &save))
                if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.') && strspn(tok, "0123456789.") == strlen(tok))
                    au_strlcpy(out, tok, size);
        }
        fclose(f);
    }
    if (!out[0] && cudaDriverGetVersion(&v) == cudaSuccess)
        snprintf(out, size, "cuda-%d.%d", v / 1000, (v % 1000) / 10);
}

/* Why no device is usable (e: cudaGetDeviceCount's error).  Without a driver the runtime says
 * "insufficient driver" too, which suggests an upgrade: no libcuda.so.1 is told apart, in
 * atomutil-profile's words (profile/cli/live.c), and a driver older than the runtime names both
 * versions.  AU_CAL_E_NODEV. */
static int no_device(cudaError_t e)
{
    if (e == cudaSuccess)
        return au_set_error(AU_CAL_E_NODEV, "no usable CUDA device (none found)");
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda)
        return au_set_error(AU_CAL_E_NODEV, "no NVIDIA driver: cannot load libcuda.so.1 (%s)", dlerror());
    dlclose(cuda); /* the runtime holds its own reference where it loaded the driver */
    int drv = 0, rt = 0;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0 &&
        cudaRuntimeGetVersion(&rt) == cudaSuccess)
        return au_set_error(AU_CAL_E_NODEV,
                            "the NVIDIA driver supports CUDA %d.%d, older than this build's CUDA runtime %d.%d: "
                            "upgrade the driver",
                            drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return au_set_error(AU_CAL_E_NODEV, "no usable CUDA device (%s)", cudaGetErrorString(e));
}

int au_cal_gpu_open(int device, au_cal_gpu **out, au_cal_devinfo *info)
{
    int rc = AU_OK, count = 0, rt = 0;
    struct cudaDeviceProp prop;
    au_cal_gpu *g = NULL;
    *out = NULL;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return no_device(e);
    if (device >= count)
        return au_set_error(AU_CAL_E_NODEV, "no CUDA device %d (%d present)", device, count);
    g = calloc(1, sizeof *g);
    if (!g)
        return au_set_error(AU_E_NOMEM, "out of memory");
    g->device = device;
    CUDA_CHECK(cudaSetDevice(device), goto fail);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device), goto fail);
    if (!prop.cooperativeLaunch) {
        rc = au_set_error(AU_CAL_E_GPU,
                          "%s cannot launch cooperative kernels, which the "
                          "calibration needs (all blocks resident at once)",
                          prop.name);
        goto fail;
    }
    au_cal_devinfo *d = &g->info;
    au_strlcpy(d->name, prop.name, sizeof d->name);
    d->cc_major = prop.major;
    d->cc_minor = prop.minor;
    d->sm_count = prop.multiProcessorCount;
    d->max_warps = prop.maxThreadsPerMultiProcessor / 32;
    d->warps_per_block = d->max_warps / AU_CAL_BLOCKS_PER_SM;
    if (d->warps_per_block < 1 || d->warps_per_block > 32 || d->warps_per_block * 32 > prop.maxThreadsPerBlock ||
        d->max_warps != d->warps_per_block * AU_CAL_BLOCKS_PER_SM) {
        rc = au_set_error(AU_CAL_E_GPU, "%s: %d resident warps per SM cannot be split into %d blocks", prop.name,
                          d->max_warps, AU_CAL_BLOCKS_PER_SM);
        goto fail;
    }
    CUDA_CHECK(cudaRuntimeGetVersion(&rt), goto fail);
    snprintf(d->cuda_version, sizeof d->cuda_version, "%d.%d", rt / 1000, (rt % 1000) / 10);
    driver_version(d->driver_version, sizeof d->driver_version);
    g->nsm = d->sm_count;
    g->block_threads = d->warps_per_block * 32;

    const size_t nsync = au_cal_sync_words(g->nsm);
    CUDA_CHECK(cudaMalloc((void **)&g->d_sync, nsync * sizeof *g->d_sync), goto fail);
    CUDA_CHECK(cudaMalloc((void **)&g->d_sink, 1024 * sizeof *g->d_sink), goto fail);
    CUDA_CHECK(cudaMalloc((void **)&g->d_first, ((size_t)g->nsm + 1) * sizeof *g->d_first), goto fail);
    CUDA_CHECK(cudaMalloc((void **)&g->d_clocks, 4 * (size_t)g->nsm * sizeof *g->d_clocks), goto fail);
    g->h_first = malloc(((size_t)g->nsm + 1) * sizeof *g->h_first);
    g->h_clocks = malloc(4 * (size_t)g->nsm * sizeof *g->h_clocks);
    if (!g->h_first || !g->h_clocks) {
        rc = au_set_error(AU_E_NOMEM, "out of memory");
        goto fail;
    }
    *info = *d;
    *out = g;
    return AU_OK;
fail:
    au_cal_gpu_close(g);
    return rc;
}

static void free_items(au_cal_gpu *g)
{
    cudaFree(g->d_items);
    cudaFree(g->d_slots);
    free(g->h_items);
    free(g->h_slots);
    free(g->order);
    free(g->cost);
    g->d_items = NULL;
    g->d_slots = NULL;
    g->h_items = NULL;
    g->h_slots = NULL;
    g->order = NULL;
    g->cost = NULL;
    g->cap = 0;
}

void au_cal_gpu_close(au_cal_gpu *g)
{
    if (!g)
        return;
    free_items(g);
    cudaFree(g->d_sync);
    cudaFree(g->d_sink);
    cudaFree(g->d_first);
    cudaFree(g->d_clocks);
    free(g->h_first);
    free(g->h_clocks);
    free(g);
}

static int reserve(au_cal_gpu *g, size_t n)
{
    int rc = AU_OK;
    if (n <= g->cap)
        return AU_OK;
    free_items(g);
    CUDA_CHECK(cudaMalloc((void **)&g->d_items, n * sizeof *g->d_items), return rc);
    CUDA_CHECK(cudaMalloc((void **)&g->d_slots, 2 * n * sizeof *g->d_slots), return rc);
    g->h_items = malloc(n * sizeof *g->h_items);
    g->h_slots = malloc(2 * n * sizeof *g->h_slots);
    g->order = malloc(n * sizeof *g->order);
    g->cost = malloc(n * sizeof *g->cost);
    if (!g->h_items || !g->h_slots || !g->order || !g->cost)
        return au_set_error(AU_E_NOMEM, "out of memory");
    g->cap = n;
    return AU_OK;
}

static int check_occupancy(au_cal_gpu *g, int family)
{
    int rc = AU_OK, blocks = 0;
    if (g->occupancy_ok & (1u << family))
        return AU_OK;
    if (family < 0 || family >= au_cal_natoms) /* the dsmem families have their own runner */
        return au_set_error(AU_E_INVAL, "family #%d is not an ATOMS family of this runner", family);
    CUDA_CHECK((cudaError_t)launchers[family].occupancy(g->block_threads, &blocks), return rc);
    if (blocks < AU_CAL_BLOCKS_PER_SM)
        return au_set_error(AU_CAL_E_GPU, "kernel %s: %d block(s) of %d threads fit on one SM, need %d",
                            au_cal_families[family].name, blocks, g->block_threads, AU_CAL_BLOCKS_PER_SM);
    g->occupancy_ok |= 1u << family;
    return AU_OK;
}

static const char *status_text(unsigned st, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s", st & AU_CAL_ERR_SMID ? " smid-out-of-range" : "",
             st & AU_CAL_ERR_CROWDED ? " three-blocks-on-one-SM" : "",
             st & AU_CAL_ERR_TIMEOUT ? " partner-block-timeout" : "",
             st & AU_CAL_ERR_ORDINAL ? " too-many-SMs-paired" : "");
    return buf;
}

/* One cooperative launch of g->h_items[0..n) laid out by g->h_first.  Returns AU_OK with the slot
 * records in g->h_slots, 1 when the launch ran but its pairing failed (worth another try), or
 * < 0 on a CUDA error. */
static int launch_once(au_cal_gpu *g, int family, size_t n, int go_margin)
{
    int rc = AU_OK;
    unsigned words[2];
    const size_t nsync = au_cal_sync_words(g->nsm);
    CUDA_CHECK(cudaMemcpy(g->d_items, g->h_items, n * sizeof *g->d_items, cudaMemcpyHostToDevice), return rc);
    CUDA_CHECK(cudaMemcpy(g->d_first, g->h_first, ((size_t)g->nsm + 1) * sizeof *g->d_first, cudaMemcpyHostToDevice),
               return rc);
    CUDA_CHECK(cudaMemset(g->d_sync, 0, nsync * sizeof *g->d_sync), return rc);
    CUDA_CHECK(cudaMemset(g->d_slots, 0, 2 * n * sizeof *g->d_slots), return rc);
    CUDA_CHECK(cudaMemset(g->d_clocks, 0, 4 * (size_t)g->nsm * sizeof *g->d_clocks), return rc);
    au_cal_args a;
    memset(&a, 0, sizeof a);
    a.items = g->d_items;
    a.first = g->d_first;
    a.slots = g->d_slots;
    a.sync = g->d_sync;
    a.clocks = g->d_clocks;
    a.sink = g->d_sink;
    a.guard = 0xDEADBEEFu; /* no checksum of this run reaches it; if one did, the item is redone */
    a.seed = 0;
    a.nsm = g->nsm;
    a.warps_per_block = g->block_threads / 32;
    a.timeout = TIMEOUT_CYCLES;
    a.go_margin = go_margin;
    a.solo_margin = SOLO_MARGIN;
    const double t0 = au_monotonic_s();
    CUDA_CHECK((cudaError_t)launchers[family].launch(&a, g->block_threads), return rc);
    CUDA_CHECK(cudaGetLastError(), return rc);
    CUDA_CHECK(cudaDeviceSynchronize(), return rc);
    g->gpu_seconds += au_monotonic_s() - t0;
    CUDA_CHECK(cudaMemcpy(words, g->d_sync + 2 * AU_CAL_MAX_SMID, sizeof words, cudaMemcpyDeviceToHost), return rc);
    CUDA_CHECK(cudaMemcpy(g->h_slots, g->d_slots, 2 * n * sizeof *g->h_slots, cudaMemcpyDeviceToHost), return rc);
    CUDA_CHECK(cudaMemcpy(g->h_clocks, g->d_clocks, 4 * (size_t)g->nsm * sizeof *g->h_clocks, cudaMemcpyDeviceToHost),
               return rc);
    if (words[0] != 0 || words[1] != (unsigned)g->nsm) {
        char buf[128];
        au_set_error(AU_CAL_E_GPU, "kernel %s: pairing failed:%s (%u of %d SMs paired)", au_cal_families[family].name,
                     status_text(words[0], buf, sizeof buf), words[1], g->nsm);
        return 1;
    }
    for (int k = 0; k < g->nsm; ++k) {
        const long long *c = &g->h_clocks[4 * k];
        if (c[1] > 0 && c[3] > c[1] && c[2] > c[0]) {
            g->clk_cycles += (double)(c[2] - c[0]);
            g->clk_ns += (double)(c[3] - c[1]);
        }
    }
    return AU_OK;
}

static int launch_tries(au_cal_gpu *g, int family, size_t n, int go_margin)
{
    int rc = 1;
    for (int t = 0; t < LAUNCH_TRIES && rc == 1; ++t)
        rc = launch_once(g, family, n, go_margin);
    return rc == 1 ? AU_CAL_E_GPU : rc; /* au_last_error() says why the last try failed */
}

static au_cal_item make_item(const au_cal_point *p, int k)
{
    au_cal_item it;
    memset(&it, 0, sizeof it);
    it.n = (short)p->n;
    it.c = (short)p->c;
    it.lanes_op = (short)p->lanes_op;
    it.lanes_cas = (short)p->lanes_cas;
    it.k = k;
    it.pattern = p->pattern;
    return it;
}

/* Books a rejected run. */
static void reject(au_cal_gpu *g, int why, const au_cal_slot s[2], const au_cal_item *it)
{
    g->redone[why]++;
    if (why == AU_CAL_REJ_SKEW) {
        const long long d = au_cal_skew(s, it, g->block_threads / 32);
        g->worst_skew = d > g->worst_skew ? d : g->worst_skew;
    }
}

int au_cal_gpu_measure(au_cal_gpu *g, const au_cal_plan *p, int reps, int k, double *samples,
                       au_cal_progress_fn progress, void *user)
{
    int rc = AU_OK;
    int *pending = NULL, *next = NULL;
    double total = 0, done = 0;
    for (size_t i = 0; i < p->npts; ++i)
        total += 2.0 * p->pts[i].est_cycles * reps;
    const size_t chunk_cap =
        (size_t)p->npts * (size_t)reps < CHUNK_MAX_ITEMS ? (size_t)p->npts * (size_t)reps : CHUNK_MAX_ITEMS;
    if ((rc = reserve(g, chunk_cap ? chunk_cap : 1)))
        return rc;
    pending = malloc((p->npts * (size_t)reps + 1) * sizeof *pending);
    next = malloc((p->npts * (size_t)reps + 1) * sizeof *next);
    if (!pending || !next) {
        rc = au_set_error(AU_E_NOMEM, "out of memory");
        goto done;
    }
    size_t lo = 0;
    while (lo < p->npts) {
        const int fam = p->pts[lo].family;
        size_t hi = lo;
        while (hi < p->npts && p->pts[hi].family == fam)
            ++hi;
        if ((rc = check_occupancy(g, fam)))
            goto done;
        /* runs are numbered point * reps + rep, as in samples[] */
        size_t npend = 0;
        for (size_t i = lo; i < hi; ++i)
            for (int r = 0; r < reps; ++r)
                pending[npend++] = (int)(i * (size_t)reps + (size_t)r);
        int margin = GO_MARGIN, last_reason = AU_CAL_REJ_NONE;
        for (int round = 0; round < MAX_ROUNDS && npend > 0; ++round, margin *= 2) {
            size_t nnext = 0, at = 0;
            while (at < npend) {
                /* the next chunk: up to the predicted budget of all SMs */
                size_t m = 0;
                double sum = 0;
                while (at + m < npend && m < g->cap && sum < CHUNK_CYCLES_PER_SM * g->nsm) {
                    const au_cal_point *pt = &p->pts[pending[at + m] / reps];
                    g->cost[m] = 2.0 * pt->est_cycles;
                    sum += g->cost[m];
                    ++m;
                }
                if (au_cal_schedule(g->cost, m, g->nsm, g->order, g->h_first) < 0) {
                    rc = au_set_error(AU_E_NOMEM, "out of memory");
                    goto done;
                }
                for (size_t j = 0; j < m; ++j)
                    g->h_items[j] = make_item(&p->pts[pending[at + g->order[j]] / reps], k);
                if ((rc = launch_tries(g, fam, m, margin)))
                    goto done;
                for (size_t j = 0; j < m; ++j) {
                    const int run = pending[at + g->order[j]];
                    double s = 0;
                    const int why = au_cal_item_service(&g->h_slots[2 * j], &g->h_items[j], g->block_threads / 32, &s);
                    if (why == AU_CAL_REJ_NONE) {
                        samples[run] = s;
                    } else {
                        next[nnext++] = run;
                        reject(g, why, &g->h_slots[2 * j], &g->h_items[j]);
                        last_reason = why;
                    }
                }
                at += m;
                done += sum;
                if (progress)
                    progress(done < total ? done / total : 1.0, au_cal_families[fam].name, user);
            }
            memcpy(pending, next, nnext * sizeof *pending);
            npend = nnext;
        }
        if (npend > 0) {
            rc = au_set_error(AU_CAL_E_GPU,
                              "family %s: %zu runs still rejected after %d rounds "
                              "(last reason: %s; largest block start skew %lld cycles)",
                              au_cal_families[fam].name, npend, MAX_ROUNDS, au_cal_reject_name(last_reason),
                              g->worst_skew);
            goto done;
        }
        lo = hi;
    }
done:
    free(pending);
    free(next);
    return rc;
}

int au_cal_gpu_measure_single(au_cal_gpu *g, const au_cal_point *pts, size_t n, int k, double *samples, int *skew)
{
    int rc;
    if ((rc = reserve(g, 1)))
        return rc;
    for (size_t i = 0; i < n; ++i) {
        if ((rc = check_occupancy(g, pts[i].family)))
            return rc;
        /* the one item on SM ordinal 0; every other SM's pair finds an empty list */
        g->h_first[0] = 0;
        for (int s = 1; s <= g->nsm; ++s)
            g->h_first[s] = 1;
        g->h_items[0] = make_item(&pts[i], k);
        int why = AU_CAL_REJ_NOT_RUN, margin = GO_MARGIN;
        for (int round = 0; round < MAX_ROUNDS && why != AU_CAL_REJ_NONE; ++round, margin *= 2) {
            if ((rc = launch_tries(g, pts[i].family, 1, margin)))
                return rc;
            why = au_cal_item_service(&g->h_slots[0], &g->h_items[0], g->block_threads / 32, &samples[i]);
            if (why != AU_CAL_REJ_NONE)
                reject(g, why, &g->h_slots[0], &g->h_items[0]);
        }
        skew[i] = (int)au_cal_skew(&g->h_slots[0], &g->h_items[0], g->block_threads / 32);
        if (why != AU_CAL_REJ_NONE)
            return au_set_error(AU_CAL_E_GPU, "point %s:%d:%d:%d rejected %d times (%s)",
                                au_cal_families[pts[i].family].name, pts[i].n, pts[i].a, pts[i].c, MAX_ROUNDS,
                                au_cal_reject_name(why));
    }
    return AU_OK;
}

double au_cal_gpu_clock_mhz(const au_cal_gpu *g)
{
    return g->clk_ns > 0 ? 1e3 * g->clk_cycles / g->clk_ns : 0;
}

double au_cal_gpu_seconds(const au_cal_gpu *g)
{
    return g->gpu_seconds;
}

const long *au_cal_gpu_redone(const au_cal_gpu *g)
{
    return g->redone;
}

int au_cal_gpu_worst_skew(const au_cal_gpu *g)
{
    return (int)g->worst_skew;
}
