/*
 * latency.c - the table's load latencies (docs/calibration.md, "Load latencies"): one thread
 * chases a random cycle of pointers, one per 128-byte line, through a buffer an eighth of the L2
 * (every load a hit, lines in both halves of a split L2) and through one four times the L2 and at
 * least 256 MiB (every load a miss).  The advisor prices the rest of a CAS loop's entry with them
 * (docs/advisor.md, "CAS loops with their entries").
 */
#include "cal.h"
#include "kernels/cuda_check.h"
#include "kernels/launch.h"

#include <stdint.h>
#include <stdlib.h>

#define LINE_WORDS   16 /* 64-bit words in a 128-byte line */
#define WARM_DRAM    4096L
#define TIMED_LOADS  100000L
#define DRAM_MIN_MIB 256L

/* xorshift64*: the same chase on every run */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Cycles per load of a chase through `bytes`: Sattolo's shuffle makes one cycle through every line,
 * written as the word index of the next line at each line's start. */
static int chase(long bytes, int warm_all, double *cycles_per_load)
{
    int rc = AU_OK;
    const size_t lines = (size_t)bytes / (LINE_WORDS * sizeof(uint64_t));
    uint64_t *next = malloc(lines * sizeof *next), seed = 0x9e3779b97f4a7c15ull;
    unsigned long long *buf = NULL, *out = NULL;
    long long *cyc = NULL, c = 0;
    if (!next)
        return au_set_error(AU_E_NOMEM, "out of memory");
    for (size_t i = 0; i < lines; ++i)
        next[i] = i;
    for (size_t i = lines - 1; i > 0; --i) {
        const size_t j = (size_t)(next_rand(&seed) % i), t = next[i];
        next[i] = next[j], next[j] = t;
    }
    for (size_t i = 0; i < lines; ++i)
        next[i] *= LINE_WORDS;
    CUDA_CHECK(cudaMalloc((void **)&buf, lines * LINE_WORDS * sizeof(uint64_t)), goto done);
    CUDA_CHECK(cudaMalloc((void **)&out, sizeof *out), goto done);
    CUDA_CHECK(cudaMalloc((void **)&cyc, sizeof *cyc), goto done);
    /* next[i] to the first word of line i */
    CUDA_CHECK(cudaMemcpy2D(buf, LINE_WORDS * sizeof(uint64_t), next, sizeof(uint64_t), sizeof(uint64_t), lines,
                            cudaMemcpyHostToDevice),
               goto done);
    const long warm = warm_all ? (long)lines : WARM_DRAM;
    CUDA_CHECK((cudaError_t)au_cal_chase_launch(buf, 0, warm, TIMED_LOADS, out, cyc), goto done);
    CUDA_CHECK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost), goto done);
    if (c <= 0)
        rc = au_set_error(AU_CAL_E_GPU, "load latency: the chase read %lld cycles", c);
    else
        *cycles_per_load = (double)c / TIMED_LOADS;
done:
    cudaFree(buf);
    cudaFree(out);
    cudaFree(cyc);
    free(next);
    return rc;
}

int au_cal_load_latency(int device, au_cal_latency *lat, char *why, size_t whylen)
{
    int rc = AU_OK, l2 = 0;
    size_t free_b = 0, total_b = 0;
    lat->l2_hit_cycles = lat->dram_cycles = 0;
    lat->l2_bytes = lat->dram_bytes = 0;
    why[0] = '\0';
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), return rc);
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), return rc);
    if (l2 < (1 << 20)) {
        snprintf(why, whylen, "the device reports an L2 of %d bytes", l2);
        return AU_OK;
    }
    lat->l2_bytes = l2 / 8;
    if ((rc = chase(lat->l2_bytes, 1, &lat->l2_hit_cycles)))
        return rc;
    long dram = 4L * l2;
    if (dram < DRAM_MIN_MIB << 20)
        dram = DRAM_MIN_MIB << 20;
    /* a quarter of the free memory at most: the GPU may be shared */
    if ((size_t)dram > free_b / 4) {
        snprintf(why, whylen, "DRAM latency not measured: %ld MiB wanted, %zu MiB free", dram >> 20, free_b >> 20);
        return AU_OK;
    }
    lat->dram_bytes = dram;
    return chase(dram, 0, &lat->dram_cycles);
}
