/*
 * persm_targets: GPU test targets with known per-SM, per-class job counts
 * (tests/device/opcodes_check.py checks what atomutil reports against what this prints).
 *   uneven: one block per SM (dynamic shared memory over half the SM's), 8 warps each; the warps
 *           of the block on SM s issue (1 + s % 4) * 256 ATOMS.ADD each.  Prints "smid,jobs" for
 *           every block, so per-SM counts and the SM instance <-> %smid mapping can be checked.
 *   mix:    every warp issues 256 ATOMS.ADD and 256 ATOMS.CAS (its own words: no CAS fails).
 * Output (stdout): "uneven,<smid>,<jobs>" per SM, then "mix,<add jobs>,<cas jobs>" totals.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK_PROGRAM "persm_targets"
#include "../../calibrate/kernels/cuda_check.h"

#define K 256

__global__ void uneven(unsigned *smid_out, unsigned *sink)
{
    extern __shared__ unsigned words[];
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (threadIdx.x == 0)
        smid_out[blockIdx.x] = smid;
    for (int i = threadIdx.x; i < 32 * 8; i += blockDim.x)
        words[i] = 0;
    __syncthreads();
    unsigned reps = (1 + smid % 4) * K, acc = 0;
    /* each lane its own word of the warp's 32: one pass per job */
    unsigned *w = &words[(threadIdx.x / 32) * 32 + threadIdx.x % 32];
    for (unsigned r = 0; r < reps; ++r)
        acc += atomicAdd(w, 1u);
    if (acc == 0xFFFFFFFFu) /* never: keeps the result used (ATOMS.ADD) */
        *sink = acc;
}

__global__ void mix(unsigned *sink)
{
    __shared__ unsigned words[2 * 256];
    for (int i = threadIdx.x; i < 2 * 256; i += blockDim.x)
        words[i] = 0;
    __syncthreads();
    unsigned *a = &words[threadIdx.x], *c = &words[256 + threadIdx.x], acc = 0;
    for (int r = 0; r < K; ++r) {
        acc += atomicAdd(a, 1u);
        acc += atomicCAS(c, (unsigned)r, (unsigned)r + 1);
    }
    if (acc == 0xFFFFFFFFu)
        *sink = acc;
}

int main(void)
{
    int dev, sms, smem_sm;
    CUDA_CHECK(cudaGetDevice(&dev), return 1);
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), return 1);
    CUDA_CHECK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev), return 1);
    /* more than half the SM's shared memory: at most one block per SM, so with #SMs blocks each
     * SM holds exactly one */
    size_t smem = (size_t)smem_sm / 2 + 4096;
    CUDA_CHECK(cudaFuncSetAttribute(uneven, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), return 1);
    unsigned *d_smid, *d_sink;
    CUDA_CHECK(cudaMalloc(&d_smid, sms * sizeof(unsigned)), return 1);
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(unsigned)), return 1);
    uneven<<<sms, 256, smem>>>(d_smid, d_sink);
    CUDA_CHECK(cudaGetLastError(), return 1);
    CUDA_CHECK(cudaDeviceSynchronize(), return 1);
    unsigned *smid = (unsigned *)malloc(sms * sizeof(unsigned));
    CUDA_CHECK(cudaMemcpy(smid, d_smid, sms * sizeof(unsigned), cudaMemcpyDeviceToHost), return 1);
    int *seen = (int *)calloc(1024, sizeof(int));
    for (int b = 0; b < sms; ++b) {
        if (smid[b] >= 1024 || seen[smid[b]]++) {
            fprintf(stderr, "persm_targets: two blocks on SM %u: the one-block-per-SM setup failed\n", smid[b]);
            return 1;
        }
        printf("uneven,%u,%u\n", smid[b], 8u * (1 + smid[b] % 4) * K);
    }
    int blocks = 2 * sms;
    mix<<<blocks, 256>>>(d_sink);
    CUDA_CHECK(cudaGetLastError(), return 1);
    CUDA_CHECK(cudaDeviceSynchronize(), return 1);
    printf("mix,%d,%d\n", blocks * 8 * K, blocks * 8 * K);
    free(smid);
    free(seen);
    CUDA_CHECK(cudaFree(d_smid), return 1);
    CUDA_CHECK(cudaFree(d_sink), return 1);
    return 0;
}
