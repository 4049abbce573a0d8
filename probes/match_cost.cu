// match_cost.cu - what the warp-aggregation cure's own instructions cost an SM (issue 37: the
// `aggregate` cure's code pairs hist_match and scatter_match measured 1.5-2.4x slower than their
// baselines, docs/advisor.md "Measured accuracy"): __match_any_sync (MATCH.ANY) and
// __reduce_add_sync (REDUX.SUM) with nothing else running, as a dependent chain of one warp
// (latency) and from W warps of one block per SM (throughput: SM cycles per warp-instruction).
// Lane values: all lanes one value, 4 groups of 8, or 32 distinct.
//
//   nvcc -O3 -arch=sm_90 -o match_cost probes/match_cost.cu && ./match_cost
//
// Prints CSV: op,values,warps,cycles_per_inst (clock64 of each block, the slowest block).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK_PROGRAM "match_cost"
#include "../calibrate/kernels/cuda_check.h"
#define CHECK(x) CUDA_CHECK(x, return 1)

static const int ITERS = 4096;

// op 0: MATCH.ANY, 1: REDUX.SUM, 2: REDUX.SUM over the lane's group, 3: MATCH.ANY then REDUX over
// its group; groups: lanes per value (32: one value, 8: 4 groups, 1: distinct)
__global__ void chain(int op, int groups, unsigned seed, long long *cycles, unsigned *sink)
{
    const unsigned lane = threadIdx.x & 31;
    unsigned v = lane / groups + seed, acc = 0;
    __syncthreads();
    const long long t0 = clock64();
    for (int i = 0; i < ITERS; ++i) {
        unsigned r;
        if (op == 0)
            r = __match_any_sync(0xffffffffu, v);
        else if (op == 1)
            r = __reduce_add_sync(0xffffffffu, v);
        else if (op == 2) // REDUX over each lane's own group (scatter_match's group_sum)
            r = __reduce_add_sync(0xffffffffu >> (32 - groups) << (lane / groups * groups % 32), v);
        else { // scatter_match's pair: the group from MATCH.ANY, then REDUX over it
            const unsigned g = __match_any_sync(0xffffffffu, v);
            r = __reduce_add_sync(g, v) + g;
        }
        acc += r;
        v = (lane / groups + seed) ^ (r & 0x80000000u); // depends on r, keeps the lane groups
    }
    __syncthreads();
    const long long t1 = clock64();
    if (threadIdx.x == 0)
        cycles[blockIdx.x] = t1 - t0;
    if (acc == 0x12345678u)
        *sink = acc;
}

int main()
{
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    long long *cyc;
    unsigned *sink;
    CHECK(cudaMalloc(&cyc, sms * sizeof(long long)));
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    long long *h = (long long *)malloc(sms * sizeof(long long));
    printf("# %s, %d SMs\n", prop.name, sms);
    printf("op,values,warps,cycles_per_inst\n");
    const char *ops[] = {"match_any", "reduce_add", "reduce_add_group", "match_reduce"};
    const int groups[] = {32, 8, 1};
    const char *gname[] = {"one", "four", "distinct"};
    const int warps[] = {1, 4, 16, 32};
    for (int op = 0; op < 4; ++op)
        for (int g = 0; g < 3; ++g)
            for (int w : warps) {
                chain<<<sms, 32 * w>>>(op, groups[g], 1, cyc, sink); // warm
                chain<<<sms, 32 * w>>>(op, groups[g], 2, cyc, sink);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(h, cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
                long long worst = 0;
                for (int b = 0; b < sms; ++b)
                    worst = h[b] > worst ? h[b] : worst;
                printf("%s,%s,%d,%.2f\n", ops[op], gname[g], w, (double)worst / ITERS / w);
            }
    free(h);
    cudaFree(cyc);
    cudaFree(sink);
    return 0;
}
