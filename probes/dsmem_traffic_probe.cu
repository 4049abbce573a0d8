/*
 * dsmem_traffic_probe.cu - which counters tell distributed-shared-memory *atomics* from other
 * DSMEM traffic (remote loads and stores, cluster barriers) that cluster kernels of libraries
 * (cuDNN, CUTLASS) make without a single atomic.  One kernel, clusters of 2 blocks of 1024
 * threads, 132 clusters; each thread does ITERS x 8 of:
 *   mode 0 remote_st:   a store to the next rank's shared memory (cluster.map_shared_rank)
 *   mode 1 remote_ld:   a load from it (result used)
 *   mode 2 barrier:     cluster.sync() only
 *   mode 3 remote_atom: atomicAdd on it (the generic ATOM), lanes on distinct words
 *   mode 4 own_atom:    atomicAdd on the own rank's shared memory through map_shared_rank
 *   mode 5 remote_atom_word: atomicAdd on it, all lanes of a warp on one word
 * Run it under Nsight Compute with the counters in question (probes/dsmem_traffic_probe.sh);
 * one launch per mode, in mode order, each after a warm-up launch.  Standalone (sm_90).
 */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;
#define CUDA_CHECK_PROGRAM "dsmem_traffic_probe"
#include "../calibrate/kernels/cuda_check.h"
#define CK(x) CUDA_CHECK(x, exit(1))

__global__ void __cluster_dims__(2, 1, 1) k_traffic(int mode, int iters, unsigned *sink)
{
    __shared__ unsigned s[1024];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = threadIdx.x;
    cl.sync();
    unsigned r = cl.block_rank();
    unsigned *other = cl.map_shared_rank(s, (r + 1) % 2), *own = cl.map_shared_rank(s, r);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned acc = 0;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            switch (mode) {
            case 0: other[(threadIdx.x + u * 32) & 1023] = i + u; break;
            case 1: acc += ((volatile unsigned *)other)[(threadIdx.x + u * 32) & 1023]; break;
            case 2: cl.sync(); break;
            case 3: acc += atomicAdd(other + threadIdx.x, 1u); break;
            case 4: acc += atomicAdd(own + threadIdx.x, 1u); break;
            default: acc += atomicAdd(other + w, 1u); break;
            }
        }
    }
    (void)lane;
    cl.sync(); /* no block leaves while another may still touch its shared memory */
    if (acc == 0xdeadbeefu)
        sink[0] = acc;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 64;
    unsigned *sink;
    CK(cudaMalloc(&sink, sizeof *sink));
    static const char *names[] = {"remote_st", "remote_ld", "barrier", "remote_atom", "own_atom", "remote_atom_word"};
    for (int mode = 0; mode < 6; ++mode) {
        k_traffic<<<264, 1024>>>(mode, 1, sink); /* warm-up */
        k_traffic<<<264, 1024>>>(mode, iters, sink);
        CK(cudaDeviceSynchronize());
        printf("mode %d %s: ok\n", mode, names[mode]);
    }
    return 0;
}
