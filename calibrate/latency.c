/*
 * latency.c - the table's load latencies (docs/calibration.md, "Load latencies"): one thread
 * chases a random cycle of pointers, one per 128-byte line, through a buffer an eighth of the L2
 * (every load a hit, lines in both halves of a split L2) and through one four times the L2 and at
 * least 256 MiB (every load a miss).  The advisor prices the rest of a CAS loop's entry with them
 * (docs/advisor.md, "CAS loops with their entries").  And what MATCH.ANY costs an SM per distinct
 * lane value, the work of the aggregate cure (docs/advisor.md, "Warp aggregation's own work"): a
 * block of 32 warps per SM (throughput) and of one warp (latency), 32 distinct values.
 */
#include "cal.h"
#include "kernels/cuda_check.h"
#include "kernels/launch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LINE_WORDS   16 /* 64-bit words in a 128-byte line */
#define WARM_DRAM    4096L
#define TIMED_LOADS  100000L
#define DRAM_MIN_MIB 256L
#define MATCH_ITERS  4096L
#define MATCH_WARPS  32

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

/* SM cycles per lane value of MATCH.ANY over 32 distinct values, from warps warps in each of the
 * SMs' blocks: the slowest block's (a block the scheduler put beside another would be slower,
 * never faster); 0 where the GPU has no MATCH. */
static int match_cost(int sms, int warps, double *per_value)
{
    int rc = AU_OK;
    long long *cyc = NULL, *h = malloc((size_t)sms * sizeof *h), worst = 0;
    unsigned *sink = NULL;
    *per_value = 0;
    if (!h)
        return au_set_error(AU_E_NOMEM, "out of memory");
    CUDA_CHECK(cudaMalloc((void **)&cyc, (size_t)sms * sizeof *cyc), goto done);
    CUDA_CHECK(cudaMalloc((void **)&sink, sizeof *sink), goto done);
    for (int pass = 0; pass < 2; ++pass) /* the first warms the code */
        CUDA_CHECK((cudaError_t)au_cal_match_launch(sms, warps, MATCH_ITERS, cyc, sink), goto done);
    CUDA_CHECK(cudaMemcpy(h, cyc, (size_t)sms * sizeof *h, cudaMemcpyDeviceToHost), goto done);
    for (int b = 0; b < sms; ++b) {
        if (h[b] < 0)
            goto done; /* no MATCH on this GPU */
        worst = h[b] > worst ? h[b] : worst;
    }
    if (worst <= 0)
        rc = au_set_error(AU_CAL_E_GPU, "MATCH cost: a block read %lld cycles", worst);
    else
        *per_value = (double)worst / MATCH_ITERS / warps / 32.0;
done:
    cudaFree(cyc);
    cudaFree(sink);
    free(h);
    return rc;
}

int au_cal_load_latency(int device, au_cal_latency *lat, char *why, size_t whylen)
{
    int rc = AU_OK, l2 = 0, sms = 0;
    size_t free_b = 0, total_b = 0;
    lat->l2_hit_cycles = lat->dram_cycles = 0;
    lat->l2_bytes = lat->dram_bytes = 0;
    lat->match_cycles_per_value = lat->match_latency_per_value = 0;
    why[0] = '\0';
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), return rc);
    if ((rc = match_cost(sms, MATCH_WARPS, &lat->match_cycles_per_value)) ||
        (rc = match_cost(sms, 1, &lat->match_latency_per_value)))
        return rc;
    if (!(lat->match_cycles_per_value > 0) || !(lat->match_latency_per_value > 0)) {
        lat->match_cycles_per_value = lat->match_latency_per_value = 0;
        snprintf(why, whylen, "MATCH cost not measured: the GPU has no MATCH.ANY (before sm_70)");
    }
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), return rc);
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b), return rc);
    if (l2 < (1 << 20)) {
        snprintf(why + strlen(why), whylen - strlen(why), "%sthe device reports an L2 of %d bytes", why[0] ? "; " : "",
                 l2);
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
        snprintf(why + strlen(why), whylen - strlen(why), "%sDRAM latency not measured: %ld MiB wanted, %zu MiB free",
                 why[0] ? "; " : "", dram >> 20, free_b >> 20);
        return AU_OK;
    }
    lat->dram_bytes = dram;
    return chase(dram, 0, &lat->dram_cycles);
}
