// sass_forms.cu - kernels of known atomic forms, compiled to cubins for several architectures at
// build time: test_sass_scan reads them back with sass_scan.c (tests/inject/CMakeLists.txt).
extern "C" __global__ void k_none(unsigned *o)
{
    __shared__ unsigned s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = s[(threadIdx.x * 7) & 255];
}
extern "C" __global__ void k_shared(unsigned *o)
{
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    o[threadIdx.x] = atomicAdd(s + (threadIdx.x & 3), 1u);
}
// the pointer is shared memory's at run time, which the compiler cannot know: ATOM.E.MAX
extern "C" __global__ void k_generic(unsigned *g, int f, unsigned *o)
{
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned *p = (f ? s : g) + (threadIdx.x & 7);
    o[threadIdx.x] = atomicMax(p, threadIdx.x);
}
extern "C" __global__ void k_global(unsigned *g, unsigned *o)
{
    o[threadIdx.x] = atomicAdd(g + threadIdx.x, 1u);
    atomicOr(g + 256 + threadIdx.x, 1u);
}
extern "C" __global__ void k_both(unsigned *g, int f, unsigned *o)
{
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned *p = (f ? s : g) + (threadIdx.x & 7);
    o[threadIdx.x] = atomicAdd(s + (threadIdx.x & 3), 1u) + atomicCAS(p, 0u, threadIdx.x);
}
