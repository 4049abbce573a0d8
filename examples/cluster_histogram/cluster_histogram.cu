/*
 * cluster_histogram: the RGBA histogram of examples/histogram with the bins held in distributed
 * shared memory, in the shape of the CUDA Programming Guide's cluster histogram (thread block
 * clusters, sm_90).  A profiling target: it links none of atomutil's libraries.
 *
 * The 4-channel x 256-bin histogram, interleaved as bin[value * 4 + channel] like
 * examples/histogram's, is split over the C blocks of a cluster: block rank r holds bins
 * r * 1024 / C ... (r + 1) * 1024 / C - 1 in its shared memory.  Each block zeroes its slice,
 * cluster.sync(), and every thread of a grid-stride loop over pixels sends each channel value's bin
 * to rank bin / bins_per_block, offset bin % bins_per_block, through cluster.map_shared_rank with
 * atomicAdd(..., 1) (result unused, as in the guide); cluster.sync() again, and each block adds
 * its slice to the global histogram.  C = 1, 2, 4 or 8, chosen at run time (cudaLaunchKernelEx
 * with a cluster dimension); C = 1 is a plain launch of the same kernel: a per-block histogram
 * updated through a generic pointer (the compiler emits generic ATOM for map_shared_rank, not
 * ATOMS: docs/model.md, "DSMEM"), the baseline the clusters are compared with.
 * The images are examples/histogram's (solid, uniform, natural; seed 1): both programs take
 * make_image from examples/common/rgba_image.h, so they histogram the same data.  Every result is
 * checked against a CPU histogram; one timing line per image and cluster size on stdout.
 * Needs compute capability 9.0 (exit status 3 below it).  docs/case-study.md; run by
 * validation/cluster_case_study.sh.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "../common/rgba_image.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

#define BINS       256
#define CHANNELS   4
#define NBINS      (BINS * CHANNELS)
#define MAX_REPEAT 64

#define CUDA_CHECK_PROGRAM "cluster_histogram"
#include "../../calibrate/kernels/cuda_check.h"

/* bins_per_block = 1024 / C is a power of two, passed as its log2: bin / bins_per_block and
 * bin % bins_per_block are a shift and a mask (the guide's int division by a run-time value is an
 * instruction sequence per channel that would blur what the atomics cost).  __launch_bounds__
 * keeps the default launch, 2 blocks of 1024 threads per SM, resident (at most 32 registers) where
 * an SM holds them (sm_90, 100, 103). */
/* Blocks of 1024 threads, two resident per SM where an SM holds 2048 threads (sm_80, sm_90-103);
 * elsewhere no minimum, which ptxas would ignore with a warning. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || (__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1100)
#define HIST_LAUNCH_BOUNDS __launch_bounds__(1024, 2)
#else
#define HIST_LAUNCH_BOUNDS __launch_bounds__(1024)
#endif

__global__ void HIST_LAUNCH_BOUNDS cluster_hist(const uchar4 *__restrict__ img, size_t npix, unsigned *__restrict__ out,
                                                unsigned bins_log2)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned smem[]; /* this block's slice: bins_per_block words */
    const unsigned bins_per_block = 1u << bins_log2;
    cg::cluster_group cluster = cg::this_cluster();

    for (unsigned i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        smem[i] = 0;
    cluster.sync(); /* every slice of the cluster zeroed before any block adds to it */

    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < npix; p += (size_t)gridDim.x * blockDim.x) {
        const uchar4 px = img[p];
        const unsigned v[CHANNELS] = {px.x, px.y, px.z, px.w};
#pragma unroll
        for (unsigned ch = 0; ch < CHANNELS; ++ch) {
            const unsigned bin = v[ch] * CHANNELS + ch;
            unsigned *dst = cluster.map_shared_rank(smem, bin >> bins_log2);
            atomicAdd(dst + (bin & (bins_per_block - 1)), 1u);
        }
    }
    cluster.sync(); /* every remote add done before the slices are read */

    const unsigned base = cluster.block_rank() * bins_per_block;
    for (unsigned i = threadIdx.x; i < bins_per_block; i += blockDim.x) {
        const unsigned bin = base + i;
        if (smem[i]) /* as examples/histogram's merge: channel-major output */
            atomicAdd(&out[(bin % CHANNELS) * BINS + bin / CHANNELS], smem[i]);
    }
#else
    /* built for an architecture without clusters: main() refuses to launch (no sm_90 code) */
    (void)img, (void)npix, (void)out, (void)bins_log2;
#endif
}

static void usage(FILE *f)
{
    fputs("usage: cluster_histogram [options]\n"
          "  -i, --image KIND    solid|uniform|natural|all (default all)\n"
          "  -c, --cluster C     blocks per cluster: 1|2|4|8|all (default all); 1 is a plain launch\n"
          "  -p, --pixels N      pixels in the image (default 4194304)\n"
          "  -r, --repeat R      launches per case, each checked; the median is printed (default 3)\n"
          "  -b, --block B       threads per block, multiple of 32 (default 1024)\n"
          "  -h, --help          this text\n"
          "Grid: 2 blocks per SM, rounded down to a multiple of C, and no more clusters than fit on\n"
          "the GPU at once (cudaOccupancyMaxActiveClusters).  Needs compute capability 9.0 or later.\n"
          "Prints one line per image and cluster size:\n"
          "  cluster_hist image=KIND cluster=C blocks=G block=B ms=MEDIAN gpix_per_s=X check=ok\n"
          "Exit status: 0 ok, 1 CUDA error or a result that differs from the CPU histogram, 2 usage,\n"
          "3 GPU below compute capability 9.0.\n"
          "Examples:\n"
          "  cluster_histogram\n"
          "  cluster_histogram --image natural --cluster 4 --repeat 1\n"
          "  cluster_histogram -i solid -c all -b 512\n",
          f);
}

/* This block's slice of the bins, in bytes: dynamic shared memory of the launch. */
static size_t slice_bytes(int cluster)
{
    return (size_t)(NBINS / cluster) * sizeof(unsigned);
}

/* The launch configuration of clusters of C blocks (attr holds the cluster dimension). */
static void cluster_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int cluster, int grid, int block)
{
    memset(cfg, 0, sizeof *cfg);
    memset(attr, 0, sizeof *attr);
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->gridDim = dim3((unsigned)grid);
    cfg->blockDim = dim3((unsigned)block);
    cfg->dynamicSmemBytes = slice_bytes(cluster);
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* The grid for clusters of C blocks: 2 blocks per SM rounded down to a multiple of C, cut to the
 * clusters resident at once (a second wave of a few clusters would double the time of the
 * grid-stride loop; a note on stderr says so).  Non-zero with a message when none fits. */
static int pick_grid(int cluster, int block, int sm_count, int *grid)
{
    int g = 2 * sm_count / cluster * cluster, fit = 0; /* fit: clusters resident at once */
    if (cluster == 1) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cluster_hist, block, slice_bytes(1)),
                   return 1);
        fit = per_sm * sm_count;
    } else {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        cluster_config(&cfg, &attr, cluster, g, block);
        CUDA_CHECK(cudaOccupancyMaxActiveClusters(&fit, (void *)cluster_hist, &cfg), return 1);
    }
    if (fit < 1 || g < cluster) {
        fprintf(stderr, "cluster_histogram: no cluster of %d blocks of %d threads fits on this GPU\n", cluster, block);
        return 1;
    }
    if (g > fit * cluster) {
        fprintf(stderr,
                "cluster_histogram: note: cluster=%d: grid cut from %d to %d blocks, the %d "
                "clusters resident at once\n",
                cluster, g, fit * cluster, fit);
        g = fit * cluster;
    }
    *grid = g;
    return 0;
}

static cudaError_t launch(int cluster, int grid, int block, const uchar4 *img, size_t npix, unsigned *out)
{
    unsigned bins_log2 = 0;
    while ((1 << bins_log2) < NBINS / cluster)
        ++bins_log2;
    if (cluster == 1) { /* the baseline: a plain launch of the same kernel */
        cluster_hist<<<grid, block, slice_bytes(1)>>>(img, npix, out, bins_log2);
        return cudaGetLastError();
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_config(&cfg, &attr, cluster, grid, block);
    return cudaLaunchKernelEx(&cfg, cluster_hist, img, npix, out, bins_log2);
}

/* One case: R launches, each on a zeroed output and checked against the CPU histogram; prints
 * the median time. */
static int run_case(const char *image, int cluster, int grid, int block, int repeat, const uchar4 *d_img, size_t npix,
                    const unsigned *ref, unsigned *d_out)
{
    unsigned got[NBINS];
    float ms[MAX_REPEAT];
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0), return 1);
    CUDA_CHECK(cudaEventCreate(&t1), return 1);
    for (int r = 0; r < repeat; ++r) {
        /* zero the output: a kernel that adds nothing cannot pass the check */
        CUDA_CHECK(cudaMemset(d_out, 0, sizeof got), return 1);
        CUDA_CHECK(cudaEventRecord(t0), return 1);
        CUDA_CHECK(launch(cluster, grid, block, d_img, npix, d_out), return 1);
        CUDA_CHECK(cudaEventRecord(t1), return 1);
        CUDA_CHECK(cudaEventSynchronize(t1), return 1);
        CUDA_CHECK(cudaEventElapsedTime(&ms[r], t0, t1), return 1);
        CUDA_CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost), return 1);
        for (int i = 0; i < NBINS; ++i)
            if (got[i] != ref[i]) {
                fprintf(stderr,
                        "cluster_histogram: image=%s cluster=%d launch %d: channel %d value "
                        "%d counts %u, the CPU histogram %u\n",
                        image, cluster, r + 1, i / BINS, i % BINS, got[i], ref[i]);
                return 1;
            }
    }
    CUDA_CHECK(cudaEventDestroy(t0), return 1);
    CUDA_CHECK(cudaEventDestroy(t1), return 1);
    qsort(ms, (size_t)repeat, sizeof ms[0], cmp_float);
    const double med = ms[repeat / 2];
    printf("cluster_hist image=%s cluster=%d blocks=%d block=%d ms=%.4f gpix_per_s=%.2f check=ok\n", image, cluster,
           grid, block, med, med > 0 ? (double)npix / med / 1e6 : 0.0);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"image", required_argument, 0, 'i'},
                                         {"cluster", required_argument, 0, 'c'},
                                         {"pixels", required_argument, 0, 'p'},
                                         {"repeat", required_argument, 0, 'r'},
                                         {"block", required_argument, 0, 'b'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *iname = "all", *cname = "all";
    unsigned long long npix = 4194304, repeat = 3, block = 1024;
    int c;
    while ((c = getopt_long(argc, argv, "i:c:p:r:b:h", opts, NULL)) != -1) {
        unsigned long long *dst = NULL;
        switch (c) {
        case 'i': iname = optarg; continue;
        case 'c': cname = optarg; continue;
        case 'p': dst = &npix; break;
        case 'r': dst = &repeat; break;
        case 'b': dst = &block; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (parse_u64(optarg, dst) != 0) {
            fprintf(stderr, "cluster_histogram: invalid number '%s'\n", optarg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cluster_histogram: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    int do_image[NIMAGES] = {0}, nimages = 0;
    for (int k = 0; k < NIMAGES; ++k)
        nimages += do_image[k] = !strcmp(iname, image_names[k]) || !strcmp(iname, "all");
    if (nimages == 0) {
        fprintf(stderr, "cluster_histogram: unknown image kind '%s' (solid, uniform, natural, all)\n", iname);
        return 2;
    }
    static const int cluster_sizes[] = {1, 2, 4, 8};
    int do_cluster[4] = {0}, nclusters = 0;
    for (int k = 0; k < 4; ++k) {
        char name[4];
        snprintf(name, sizeof name, "%d", cluster_sizes[k]);
        nclusters += do_cluster[k] = !strcmp(cname, name) || !strcmp(cname, "all");
    }
    if (nclusters == 0) {
        fprintf(stderr, "cluster_histogram: cluster size '%s' is not 1, 2, 4, 8 or all\n", cname);
        return 2;
    }
    if (npix == 0 || npix > (1ull << 31) || block == 0 || block % 32 || block > 1024 || repeat == 0 ||
        repeat > MAX_REPEAT) {
        fprintf(stderr,
                "cluster_histogram: out of range: pixels 1..2^31, block 32..1024 step 32, "
                "repeat 1..%d\n",
                MAX_REPEAT);
        return 2;
    }

    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev), return 1);
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev), return 1);
    if (prop.major < 9) {
        fprintf(stderr,
                "cluster_histogram: %s has compute capability %d.%d; thread block clusters "
                "need 9.0 or later\n",
                prop.name, prop.major, prop.minor);
        return 3;
    }
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, cluster_hist), return 1); /* also loads the module before timing */
    if (fa.binaryVersion < 90) {
        fprintf(stderr,
                "cluster_histogram: built without sm_90 code (binary version %d); rebuild "
                "with CMAKE_CUDA_ARCHITECTURES including 90\n",
                fa.binaryVersion);
        return 1;
    }
    int grids[4] = {0};
    for (int k = 0; k < 4; ++k)
        if (do_cluster[k] && pick_grid(cluster_sizes[k], (int)block, prop.multiProcessorCount, &grids[k]) != 0)
            return 1;

    uchar4 *h_img = (uchar4 *)malloc(npix * sizeof(uchar4)), *d_img;
    unsigned *d_out, ref[NBINS];
    if (!h_img) {
        fprintf(stderr, "cluster_histogram: out of host memory\n");
        return 1;
    }
    CUDA_CHECK(cudaMalloc(&d_img, npix * sizeof(uchar4)), return 1);
    CUDA_CHECK(cudaMalloc(&d_out, NBINS * sizeof(unsigned)), return 1);
    int rc = 0;
    for (int img = 0; img < NIMAGES && rc == 0; ++img) {
        if (!do_image[img])
            continue;
        make_image(h_img, (size_t)npix, img, 1); /* seed 1: examples/histogram's default */
        cpu_histogram(h_img, (size_t)npix, ref);
        CUDA_CHECK(cudaMemcpy(d_img, h_img, npix * sizeof(uchar4), cudaMemcpyHostToDevice), return 1);
        for (int k = 0; k < 4 && rc == 0; ++k)
            if (do_cluster[k])
                rc = run_case(image_names[img], cluster_sizes[k], grids[k], (int)block, (int)repeat, d_img,
                              (size_t)npix, ref, d_out);
    }
    CUDA_CHECK(cudaFree(d_img), return 1);
    CUDA_CHECK(cudaFree(d_out), return 1);
    free(h_img);
    return rc;
}
