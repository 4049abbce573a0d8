// load_latency.cu - what one global load costs a warp with nothing else running, from L2 and from
// DRAM (issue 37, docs/advisor.md "CAS loops with their entries"): a single thread chases a
// random cycle of pointers, one per 128-byte line, through a buffer of the given size, with
// ld.global.cg (L2, not L1), and reads clock64() around the chase.  A buffer well inside L2 gives
// the L2-hit latency, one many times L2 the DRAM latency (with the TLB misses of a 1 GiB spread).
//
//   nvcc -O3 -arch=sm_90 -o load_latency probes/load_latency.cu && ./load_latency [MiB ...]
//
// Prints one line per size: mib, lines, loads, cycles_per_load, ns_per_load (the SM clock read
// with cudaDevAttrClockRate is the nominal one; cycles are what the docs use).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CHECK(x)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "load_latency: %s: %s\n", #x, cudaGetErrorString(e_)); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

static const size_t LINE = 128 / sizeof(uint64_t); // words per 128-byte line

__global__ void chase(const uint64_t *buf, uint64_t start, long loads, uint64_t *out, long long *cycles)
{
    uint64_t p = start;
    for (long i = 0; i < 4096; ++i) // warm: TLB and the L2 lines the chase will hit
        p = __ldcg(buf + p);
    long long t0 = clock64();
    for (long i = 0; i < loads; ++i)
        p = __ldcg(buf + p);
    long long t1 = clock64();
    *out = p; // keeps the chase
    *cycles = t1 - t0;
}

int main(int argc, char **argv)
{
    std::vector<double> mib;
    for (int i = 1; i < argc; ++i)
        mib.push_back(atof(argv[i]));
    if (mib.empty())
        mib = {1, 4, 16, 32, 64, 256, 1024};
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, L2 %d MiB\n", prop.name, prop.l2CacheSize >> 20);
    printf("mib,lines,loads,cycles_per_load,ns_per_load\n");
    std::mt19937_64 rng(42);
    for (double m : mib) {
        size_t lines = (size_t)(m * 1024 * 1024 / 128);
        if (lines < 2)
            continue;
        std::vector<uint64_t> order(lines);
        for (size_t i = 0; i < lines; ++i)
            order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<uint64_t> host(lines * LINE, 0);
        for (size_t i = 0; i < lines; ++i) // one cycle through every line, in random order
            host[order[i] * LINE] = order[(i + 1) % lines] * LINE;
        uint64_t *buf, *out;
        long long *cyc;
        CHECK(cudaMalloc(&buf, host.size() * sizeof(uint64_t)));
        CHECK(cudaMalloc(&out, sizeof(uint64_t)));
        CHECK(cudaMalloc(&cyc, sizeof(long long)));
        CHECK(cudaMemcpy(buf, host.data(), host.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
        long loads = 200000;
        chase<<<1, 1>>>(buf, order[0] * LINE, loads, out, cyc);
        CHECK(cudaGetLastError());
        long long c = 0;
        CHECK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
        double per = (double)c / loads;
        printf("%g,%zu,%ld,%.1f,%.1f\n", m, lines, loads, per, per / (clock_khz * 1e-6));
        fflush(stdout);
        cudaFree(buf);
        cudaFree(out);
        cudaFree(cyc);
    }
    return 0;
}
