/*
 * generic_ops.cu - does every generic atomic operation on shared memory cost the same per pass?
 * (docs/opcodes.md, "Generic atomics").  One block of 32 warps (the unit saturated, as the table's
 * n_max) runs ITERS back-to-back atomics per warp through a pointer the compiler cannot trace to
 * shared memory (ATOM.E.<op>, and RED.E.ADD where the result is unused), lanes in a-way bank
 * conflicts: a lanes on distinct words of one bank (word (l % a) * 32 + l / a), so an instruction
 * takes a passes.  The same through cuda::atomic_ref<unsigned, thread_scope_block> for add and max,
 * and the ATOMS forms for reference.  Prints one CSV row per operation and a: the cycles per
 * warp-instruction and per pass, the block's clock64 span over 32 x ITERS instructions.
 *   nvcc -O3 -std=c++17 -arch=sm_90 probes/generic_ops.cu -o generic_ops && ./generic_ops [ITERS]
 * Changes no device setting.
 */
#include <cuda/atomic>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK_PROGRAM "generic_ops"
#include "../calibrate/kernels/cuda_check.h"
#define CHECK(x) CUDA_CHECK(x, return 1)

enum {
    G_ADD,
    G_MAX,
    G_MIN,
    G_EXCH,
    G_CAS,
    G_AND,
    G_OR,
    G_XOR,
    G_INC,
    G_DEC,
    G_RED_ADD, /* generic pointer */
    R_ADD,
    R_MAX, /* atomic_ref */
    S_ADD,
    S_MAX,
    S_CAS, /* ATOMS */
    NOPS
};
static const char *names[NOPS] = {"ATOM.E.ADD",     "ATOM.E.MAX", "ATOM.E.MIN", "ATOM.E.EXCH",
                                  "ATOM.E.CAS",     "ATOM.E.AND", "ATOM.E.OR",  "ATOM.E.XOR",
                                  "ATOM.E.INC",     "ATOM.E.DEC", "RED.E.ADD",  "ref ATOM.E.ADD",
                                  "ref ATOM.E.MAX", "ATOMS.ADD",  "ATOMS.MAX",  "ATOMS.CAS"};

template <int OP> __device__ __forceinline__ unsigned op(unsigned *p, unsigned *s, unsigned v)
{
    if (OP == G_ADD)
        return atomicAdd(p, 1u);
    if (OP == G_MAX)
        return atomicMax(p, v);
    if (OP == G_MIN)
        return atomicMin(p, v);
    if (OP == G_EXCH)
        return atomicExch(p, v);
    if (OP == G_CAS)
        return atomicCAS(p, v, v + 1);
    if (OP == G_AND)
        return atomicAnd(p, v);
    if (OP == G_OR)
        return atomicOr(p, v);
    if (OP == G_XOR)
        return atomicXor(p, v);
    if (OP == G_INC)
        return atomicInc(p, 1000000u);
    if (OP == G_DEC)
        return atomicDec(p, 1000000u);
    if (OP == G_RED_ADD) {
        atomicAdd(p, 1u);
        return 0;
    }
    if (OP == R_ADD)
        return cuda::atomic_ref<unsigned, cuda::thread_scope_block>(*p).fetch_add(1u, cuda::memory_order_relaxed);
    if (OP == R_MAX)
        return cuda::atomic_ref<unsigned, cuda::thread_scope_block>(*p).fetch_max(v, cuda::memory_order_relaxed);
    if (OP == S_ADD)
        return atomicAdd(s, 1u);
    if (OP == S_MAX)
        return atomicMax(s, v);
    return atomicCAS(s, v, v + 1);
}

/* flag is 1 at run time: p points into shared memory, but the compiler cannot know it */
template <int OP>
__global__ void __launch_bounds__(1024) kern(unsigned *g, int flag, int a, int iters, long long *span, unsigned *sink)
{
    __shared__ unsigned sh[32 * 32];
    int l = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        sh[i] = 0;
    __syncthreads();
    int word = (l % a) * 32 + l / a;
    unsigned *p = (flag ? sh : g) + word;
    unsigned acc = 0, v = threadIdx.x;
    long long t0 = clock64();
    __syncthreads();
    for (int i = 0; i < iters; ++i)
        acc += op<OP>(p, sh + word, v + i);
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        *span = t1 - t0;
    if (acc == 0xdeadbeef)
        *sink = acc;
}

typedef void (*kfn)(unsigned *, int, int, int, long long *, unsigned *);
static kfn kernels[NOPS] = {kern<G_ADD>, kern<G_MAX>, kern<G_MIN>, kern<G_EXCH>, kern<G_CAS>,     kern<G_AND>,
                            kern<G_OR>,  kern<G_XOR>, kern<G_INC>, kern<G_DEC>,  kern<G_RED_ADD>, kern<R_ADD>,
                            kern<R_MAX>, kern<S_ADD>, kern<S_MAX>, kern<S_CAS>};

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2048;
    unsigned *g, *sink;
    long long *span, h;
    CHECK(cudaMalloc(&g, 32 * 32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    CHECK(cudaMalloc(&span, sizeof(long long)));
    printf("op,a,warps,iters,cycles_per_inst,cycles_per_pass\n");
    const int as[] = {1, 2, 4, 8, 16, 32};
    for (int o = 0; o < NOPS; ++o)
        for (int ai = 0; ai < 6; ++ai) {
            int a = as[ai];
            double best = 1e30;
            for (int rep = 0; rep < 5; ++rep) { /* best of 5, the first a warm-up too */
                kernels[o]<<<1, 1024>>>(g, 1, a, iters, span, sink);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(&h, span, sizeof h, cudaMemcpyDeviceToHost));
                double c = (double)h / (32.0 * iters);
                if (rep > 0 && c < best)
                    best = c;
            }
            printf("%s,%d,32,%d,%.3f,%.3f\n", names[o], a, iters, best, best / a);
        }
    return 0;
}
