/*
 * dsmem.c - the runner of the dsmem (thread block cluster) families: checks that the device has
 * clusters and how many clusters of each family's size fit at once with one block per SM, then
 * measures every point in its own launch on all those SMs at once (kernels/dsmem.cu): a warm-up
 * pass and `reps` timed passes; S of a pass = median over blocks of block cycles / (n k).  A
 * launch whose blocks shared an SM, or whose clocks read wrong, is redone.  CUDA runtime API
 * from C.  Why it is built this way: docs/calibration.md, "Distributed shared memory (cluster)
 * families".
 */
#include "cal.h"
#include "atomutil/util.h"
#include "kernels/cuda_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Dynamic shared memory per block: at least this much (the pattern probe's 120 KB; docs/calibration.md,
 * "Distributed shared memory (cluster) families"), and always more than half an SM's, so that no
 * second block fits beside it. */
#define SMEM_FLOOR   (120 * 1024)
#define LAUNCH_TRIES 4           /* launches of one point before giving up */
#define GUARD        0xDEADBEEFu /* no checksum of a run reaches it */

int au_cal_dsmem_probe(int device, unsigned families, au_cal_dsmem_info *info)
{
    int rc = AU_OK, can = 0;
    struct cudaDeviceProp prop;
    memset(info, 0, sizeof *info);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device), return rc);
    if (prop.major < 9) {
        snprintf(info->why, sizeof info->why,
                 "%s has compute capability %d.%d; distributed shared "
                 "memory (thread block clusters) needs 9.0 or newer",
                 prop.name, prop.major, prop.minor);
        return AU_OK;
    }
    CUDA_CHECK(cudaDeviceGetAttribute(&can, cudaDevAttrClusterLaunch, device), return rc);
    if (!can) {
        snprintf(info->why, sizeof info->why, "%s cannot launch thread block clusters", prop.name);
        return AU_OK;
    }
    const long half = (long)prop.sharedMemPerMultiprocessor / 2 + 1;
    const long smem = half > SMEM_FLOOR ? half : SMEM_FLOOR;
    if (smem > (long)prop.sharedMemPerBlockOptin) {
        snprintf(info->why, sizeof info->why,
                 "%s: a block can have %zu bytes of shared memory, "
                 "%ld are needed to keep it alone on its SM",
                 prop.name, prop.sharedMemPerBlockOptin, smem);
        return AU_OK;
    }
    CUDA_CHECK((cudaError_t)au_cal_dsmem_setup((int)smem), return rc);
    info->supported = 1;
    info->smem_bytes = (int)smem;
    for (int f = au_cal_natoms; f < au_cal_nfamilies; ++f) {
        if (!(families & (1u << f)))
            continue;
        const int size = au_cal_families[f].cluster;
        int n = 0;
        /* a size the GPU cannot run fails here or gives 0 clusters: either way the family is left
         * out (the caller says so); the error is cleared for the next call */
        if (au_cal_dsmem_max_clusters(size, 1024, (int)smem, &n) != cudaSuccess) {
            (void)cudaGetLastError();
            n = 0;
        }
        if (n * size > prop.multiProcessorCount)
            n = prop.multiProcessorCount / size;
        info->clusters[f] = n;
    }
    return AU_OK;
}

int au_cal_dsmem_measure(au_cal_dsmem_info *info, const au_cal_plan *p, int reps, int k, double *samples,
                         au_cal_progress_fn progress, void *user)
{
    int rc = AU_OK, maxb = 0;
    long long *d_cycles = NULL, *h_cycles = NULL;
    int *d_smid = NULL, *h_smid = NULL;
    unsigned *d_sink = NULL;
    double total = 0, done = 0;
    if (p->npts == 0)
        return AU_OK;
    if (!info->supported)
        return au_set_error(AU_E_INVAL, "dsmem families: %s", info->why);
    for (size_t i = 0; i < p->npts; ++i) {
        const int f = p->pts[i].family;
        const au_cal_family *fam = &au_cal_families[f];
        if (!au_cal_is_dsmem(fam) || info->clusters[f] < 1)
            return au_set_error(AU_E_INVAL, "family %s cannot be measured by the dsmem runner", fam->name);
        const int b = info->clusters[f] * fam->cluster;
        maxb = b > maxb ? b : maxb;
        total += p->pts[i].est_cycles * (reps + 1);
    }
    const size_t ncyc = (size_t)reps * (size_t)maxb;
    CUDA_CHECK(cudaMalloc((void **)&d_cycles, ncyc * sizeof *d_cycles), goto done);
    CUDA_CHECK(cudaMalloc((void **)&d_smid, (size_t)maxb * sizeof *d_smid), goto done);
    CUDA_CHECK(cudaMalloc((void **)&d_sink, 1024 * sizeof *d_sink), goto done);
    h_cycles = malloc(ncyc * sizeof *h_cycles);
    h_smid = malloc((size_t)maxb * sizeof *h_smid);
    if (!h_cycles || !h_smid) {
        rc = au_set_error(AU_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->npts; ++i) {
        const au_cal_point *pt = &p->pts[i];
        const au_cal_family *fam = &au_cal_families[pt->family];
        const int clusters = info->clusters[pt->family], blocks = clusters * fam->cluster;
        const au_cal_dsmem_args a = {d_cycles, d_smid, d_sink, GUARD, 0, k, pt->a, fam->shift, fam->row, reps + 1};
        int why = AU_CAL_REJ_NOT_RUN;
        for (int t = 0; t < LAUNCH_TRIES && why != AU_CAL_REJ_NONE; ++t) {
            if (t > 0)
                info->redone++;
            info->launches++;
            CUDA_CHECK(cudaMemset(d_cycles, 0, ncyc * sizeof *d_cycles), goto done);
            CUDA_CHECK(cudaMemset(d_smid, 0xFF, (size_t)maxb * sizeof *d_smid), goto done); /* -1 */
            const double t0 = au_monotonic_s();
            CUDA_CHECK((cudaError_t)au_cal_dsmem_launch(&a, fam->cluster, clusters, 32 * pt->n, info->smem_bytes),
                       goto done);
            CUDA_CHECK(cudaGetLastError(), goto done);
            CUDA_CHECK(cudaDeviceSynchronize(), goto done);
            info->gpu_seconds += au_monotonic_s() - t0;
            CUDA_CHECK(cudaMemcpy(h_cycles, d_cycles, (size_t)reps * (size_t)blocks * sizeof *h_cycles,
                                  cudaMemcpyDeviceToHost),
                       goto done);
            CUDA_CHECK(cudaMemcpy(h_smid, d_smid, (size_t)blocks * sizeof *h_smid, cudaMemcpyDeviceToHost), goto done);
            /* pass r's cycles are h_cycles[r * blocks ...]; the launch counts only if all are good */
            why = AU_CAL_REJ_NONE;
            for (int r = 0; r < reps && why == AU_CAL_REJ_NONE; ++r)
                why = au_cal_dsmem_service(h_cycles + (size_t)r * (size_t)blocks, h_smid, blocks, pt->n, k,
                                           fam->shift < 0 ? fam->cluster : 1, &samples[i * (size_t)reps + (size_t)r]);
        }
        if (why != AU_CAL_REJ_NONE) {
            rc = au_set_error(AU_CAL_E_GPU, "%s n=%d a=%d: rejected in %d launches (%s%s)", fam->name, pt->n, pt->a,
                              LAUNCH_TRIES, au_cal_reject_name(why),
                              why == AU_CAL_REJ_NOT_RUN ? ": a block did not run, or the kernel "
                                                          "lacks sm_90 code"
                                                        : "");
            goto done;
        }
        done += pt->est_cycles * (reps + 1);
        if (progress)
            progress(done < total ? done / total : 1.0, fam->name, user);
    }
done:
    cudaFree(d_cycles);
    cudaFree(d_smid);
    cudaFree(d_sink);
    free(h_cycles);
    free(h_smid);
    return rc;
}
