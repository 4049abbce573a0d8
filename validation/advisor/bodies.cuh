/*
 * bodies.cuh - the workloads of advisor_pairs (pairs.cu): histogram, bincount, k-means update,
 * scatter-add, max and stream compaction kernels written as a user writes them (plain atomics,
 * warp intrinsics, CUB), each in a conflict-prone form and in the forms its cures give.  A body is
 * one block's work over a grid-stride loop of the n elements into a table private to the block in
 * shared memory; at the end the block writes its table to its own slice of out, and the host sums
 * the slices and compares them with a CPU reference.  The SASS each atomic is expected to compile
 * to on sm_90 is noted at the atomic (checked on the GPU: docs/validation.md, "Advisor pairs").
 */
#ifndef ADV_BODIES_CUH
#define ADV_BODIES_CUH

#include <cub/block/block_histogram.cuh>

#define ADV_FULL  0xFFFFFFFFu
#define ADV_BLOCK 256 /* threads per block: CUB's BlockHistogram is instantiated for it */
#define ADV_TILE  (ADV_BLOCK * 4u)
#define ADV_K     64 /* centroids of the k-means and max kernels */

struct AdvArgs {
    const unsigned *__restrict__ key; /* n keys in [0, 1024) */
    const float *__restrict__ val;    /* n values in {0, 1, 2, 3} */
    void *out;                        /* per block: its table (layout by result kind, pairs.cu) */
    unsigned *sink;                   /* written only under a condition that never holds */
    unsigned n;                       /* elements */
    unsigned cap;                     /* compaction: words of a block's output region */
};

/* The grid-stride loop over the elements: for (unsigned i = elem0(); i < a.n; i += elem_step()) */
__device__ __forceinline__ unsigned elem0()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned elem_step()
{
    return gridDim.x * blockDim.x;
}

__device__ __forceinline__ unsigned lane_id()
{
    return threadIdx.x & 31u;
}

template <class T> __device__ __forceinline__ void fill_shared(T *s, int words, T v)
{
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        s[i] = v;
    __syncthreads();
}

/* Keeps used results live (so that the atomic returns its old value): acc is an XOR of old counts,
 * all below 2^31, so it never has all bits set and the store never happens. */
__device__ __forceinline__ void keep_live(unsigned acc, unsigned *sink)
{
    if (acc == ADV_FULL)
        *sink = acc;
}

/* The block's table to its slice of out, as O (float for the sums: exact, all are small integers). */
template <class O, class T> __device__ __forceinline__ void store_table(const AdvArgs &a, const T *s, int words)
{
    __syncthreads();
    O *o = (O *)a.out + (size_t)blockIdx.x * words;
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        o[i] = (O)s[i];
}

/* Histogram (B = 1024) and bincount (B = 4096), the old count used: ATOMS.ADD, whose passes are
 * the most lanes of a warp in one bank, same word or not. */
template <int B> __device__ __forceinline__ void hist_add(const AdvArgs &a)
{
    __shared__ unsigned h[B];
    fill_shared(h, B, 0u);
    unsigned acc = 0;
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        acc ^= atomicAdd(&h[a.key[i] & (B - 1)], 1u); /* ATOMS.ADD */
    keep_live(acc, a.sink);
    store_table<unsigned>(a, h, B);
}

/* The same count, result unused: ATOMS.POPC.INC, whose same-word lanes fold (passes: the most
 * distinct words of a warp in one bank). */
template <int B> __device__ __forceinline__ void hist_popc(const AdvArgs &a)
{
    __shared__ unsigned h[B];
    fill_shared(h, B, 0u);
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        atomicAdd(&h[a.key[i] & (B - 1)], 1u); /* ATOMS.POPC.INC */
    store_table<unsigned>(a, h, B);
}

/* Warp aggregation of the histogram: one ATOMS.ADD per distinct key of the warp, by its first lane. */
__device__ __forceinline__ void hist_match(const AdvArgs &a)
{
    __shared__ unsigned h[1024];
    fill_shared(h, 1024, 0u);
    unsigned acc = 0;
    for (unsigned i = elem0(); i < a.n; i += elem_step()) {
        const unsigned k = a.key[i] & 1023u;
        const unsigned g = __match_any_sync(__activemask(), k);
        if (lane_id() == (unsigned)__ffs(g) - 1u)
            acc ^= atomicAdd(&h[k], (unsigned)__popc(g)); /* ATOMS.ADD */
    }
    keep_live(acc, a.sink);
    store_table<unsigned>(a, h, 1024);
}

/* Replication with padding (256 bins): lane l counts in copy l % R, copies 257 words apart so the
 * R copies of a bin lie in R banks; the copies are summed at the end. */
template <int R> __device__ __forceinline__ void hist_rep(const AdvArgs &a)
{
    __shared__ unsigned h[R * 257];
    fill_shared(h, R * 257, 0u);
    unsigned acc = 0;
    const unsigned base = (lane_id() % R) * 257u;
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        acc ^= atomicAdd(&h[base + (a.key[i] & 255u)], 1u); /* ATOMS.ADD */
    keep_live(acc, a.sink);
    __syncthreads();
    unsigned *o = (unsigned *)a.out + (size_t)blockIdx.x * 256u;
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned s = 0;
        for (int r = 0; r < R; ++r)
            s += h[r * 257 + b];
        o[b] = s;
    }
}

/* Per-lane privatization (256 bins): bin b of lane l at b * 32 + l, so every lane has its own
 * bank (32 copies); the merge reads a bin's 32 copies rotated by the bin, free of bank conflicts. */
__device__ __forceinline__ void hist_privlane(const AdvArgs &a)
{
    __shared__ unsigned h[256 * 32];
    fill_shared(h, 256 * 32, 0u);
    unsigned acc = 0;
    const unsigned l = lane_id();
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        acc ^= atomicAdd(&h[(a.key[i] & 255u) * 32u + l], 1u); /* ATOMS.ADD */
    keep_live(acc, a.sink);
    __syncthreads();
    unsigned *o = (unsigned *)a.out + (size_t)blockIdx.x * 256u;
    for (unsigned b = threadIdx.x; b < 256u; b += blockDim.x) {
        unsigned s = 0;
        for (unsigned c = 0; c < 32u; ++c)
            s += h[b * 32u + ((c + b) & 31u)];
        o[b] = s;
    }
}

/* A bijection of [0, 1024): a 4-round Feistel network on two 5-bit halves with a multiplicative
 * round function, so that keys of one bank land in pseudo-random banks (the low half). */
struct Feistel10 {
    __device__ __forceinline__ unsigned operator()(unsigned x) const
    {
        unsigned l = x >> 5, r = x & 31u;
#pragma unroll
        for (unsigned k = 1; k <= 4; ++k) {
            const unsigned f = ((r + 0x9E3779B9u * k) * 0x85EBCA6Bu) >> 27;
            const unsigned t = r;
            r = l ^ f;
            l = t;
        }
        return (l << 5) | r;
    }
};

/* Rotated bins: bin k's word in its row of 32 rotated by its row, so keys 32 apart fall in
 * neighbouring banks. */
struct Rotate10 {
    __device__ __forceinline__ unsigned operator()(unsigned k) const
    {
        return (k & ~31u) | ((k + (k >> 5)) & 31u);
    }
};

/* The histogram with bin k stored at word POS(k); the merge reads bin b at POS(b). */
template <class POS> __device__ __forceinline__ void hist_placed(const AdvArgs &a)
{
    __shared__ unsigned h[1024];
    fill_shared(h, 1024, 0u);
    const POS pos;
    unsigned acc = 0;
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        acc ^= atomicAdd(&h[pos(a.key[i] & 1023u)], 1u); /* ATOMS.ADD */
    keep_live(acc, a.sink);
    __syncthreads();
    unsigned *o = (unsigned *)a.out + (size_t)blockIdx.x * 1024u;
    for (unsigned b = threadIdx.x; b < 1024u; b += blockDim.x)
        o[b] = h[pos(b)];
}

/* CUB's BlockHistogram (atomic algorithm: atomicAdd(hist + item, 1), result unused, i.e.
 * ATOMS.POPC.INC) over tiles of 4 items per thread loaded striped, so that a warp's lanes see
 * consecutive keys as in the grid-stride kernels.  Needs blockDim.x == ADV_BLOCK, n % ADV_TILE == 0. */
__device__ __forceinline__ void hist_cub(const AdvArgs &a)
{
    typedef cub::BlockHistogram<unsigned char, ADV_BLOCK, 4, 256, cub::BLOCK_HISTO_ATOMIC> BH;
    __shared__ typename BH::TempStorage tmp;
    __shared__ unsigned h[256];
    BH bh(tmp);
    bh.InitHistogram(h);
    __syncthreads();
    for (unsigned t = blockIdx.x; t < a.n / ADV_TILE; t += gridDim.x) {
        unsigned char items[4];
#pragma unroll
        for (unsigned j = 0; j < 4; ++j)
            items[j] = (unsigned char)(a.key[t * ADV_TILE + j * ADV_BLOCK + threadIdx.x] & 255u);
        bh.Composite(items, h); /* ATOMS.POPC.INC */
    }
    store_table<unsigned>(a, h, 256);
}

/* Scatter-add of integer weights, result unused: ATOMS.ADD with no destination (the operand is not
 * the constant 1, so no POPC.INC). */
__device__ __forceinline__ void scatter_add(const AdvArgs &a)
{
    __shared__ unsigned s[1024];
    fill_shared(s, 1024, 0u);
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        atomicAdd(&s[a.key[i] & 1023u], (unsigned)a.val[i] + 1u); /* ATOMS.ADD, result unused */
    store_table<unsigned>(a, s, 1024);
}

/* The sum of w over the lanes of mask g (each lane of g calls it with g): __reduce_add_sync from
 * sm_80; before it (portable builds) the same sum by one shuffle per lane of g. */
__device__ __forceinline__ unsigned group_sum(unsigned g, unsigned w)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(g, w);
#else
    unsigned s = 0;
    for (unsigned m = g; m; m &= m - 1u)
        s += __shfl_sync(g, w, __ffs(m) - 1);
    return s;
#endif
}

/* Scatter-add aggregated per warp: the lanes of one key summed with __reduce_add_sync over their
 * __match_any_sync group, one ATOMS.ADD (result unused) by the group's first lane. */
__device__ __forceinline__ void scatter_match(const AdvArgs &a)
{
    __shared__ unsigned s[1024];
    fill_shared(s, 1024, 0u);
    for (unsigned i = elem0(); i < a.n; i += elem_step()) {
        const unsigned k = a.key[i] & 1023u;
        const unsigned g = __match_any_sync(__activemask(), k);
        const unsigned sum = group_sum(g, (unsigned)a.val[i] + 1u);
        if (lane_id() == (unsigned)__ffs(g) - 1u)
            atomicAdd(&s[k], sum); /* ATOMS.ADD, result unused */
    }
    store_table<unsigned>(a, s, 1024);
}

/* k-means update: per centroid c = key % 64 the sums of two coordinates (v, 3 - v), kept
 * structure-of-arrays (s[c], s[64 + c]).  T = float: the compiler's CAS loop ATOMS.CAST.SPIN
 * (after an LDS); T = double: ATOMS.CAST.SPIN.64; T = unsigned (fixed point, the values being
 * integers): the native ATOMS.ADD, result unused. */
template <class T> __device__ __forceinline__ void kmeans_sum(const AdvArgs &a)
{
    __shared__ T s[2 * ADV_K];
    fill_shared(s, 2 * ADV_K, (T)0);
    for (unsigned i = elem0(); i < a.n; i += elem_step()) {
        const unsigned c = a.key[i] & (ADV_K - 1);
        const float v = a.val[i];
        atomicAdd(&s[c], (T)v);
        atomicAdd(&s[ADV_K + c], (T)(3.0f - v));
    }
    store_table<float>(a, s, 2 * ADV_K);
}

/* The float k-means update with warp pre-reduction where the whole warp has one centroid
 * (__match_all_sync): a shuffle sum, one ATOMS.CAST.SPIN loop per coordinate by lane 0.  The sums
 * are of small integers, exact in any order. */
__device__ __forceinline__ void kmeans_warpsum(const AdvArgs &a)
{
    __shared__ float s[2 * ADV_K];
    fill_shared(s, 2 * ADV_K, 0.0f);
    for (unsigned i = elem0(); i < a.n; i += elem_step()) {
        const unsigned c = a.key[i] & (ADV_K - 1);
        float x = a.val[i], y = 3.0f - x;
        const unsigned m = __activemask();
        int same;
        __match_all_sync(m, c, &same);
        if (m == ADV_FULL && same) {
            for (int o = 16; o; o >>= 1) {
                x += __shfl_xor_sync(ADV_FULL, x, o);
                y += __shfl_xor_sync(ADV_FULL, y, o);
            }
            if (lane_id() != 0)
                continue;
        }
        atomicAdd(&s[c], x); /* ATOMS.CAST.SPIN loop */
        atomicAdd(&s[ADV_K + c], y);
    }
    store_table<float>(a, s, 2 * ADV_K);
}

/* The max kernels' weight of element i: non-negative, exact (pairs.cu computes the same). */
__host__ __device__ __forceinline__ float adv_weight(float v, unsigned i)
{
    return v + 0.25f * (float)(i & 3u);
}

/* Per-centroid max of float weights with the usual atomicCAS loop (LDS, then ATOMS.CAS until the
 * word did not change); every lane does at least one CAS. */
__device__ __forceinline__ void fmax_cas(const AdvArgs &a)
{
    __shared__ float m[ADV_K];
    fill_shared(m, ADV_K, 0.0f);
    for (unsigned i = elem0(); i < a.n; i += elem_step()) {
        unsigned *p = (unsigned *)&m[a.key[i] & (ADV_K - 1)];
        const float w = adv_weight(a.val[i], i);
        unsigned old = *p, assumed;
        do {
            assumed = old;
            old = atomicCAS(p, assumed, __float_as_uint(fmaxf(w, __uint_as_float(assumed)))); /* ATOMS.CAS */
        } while (old != assumed);
    }
    store_table<float>(a, m, ADV_K);
}

/* The same max as an integer max of the bits (non-negative floats order as their bits): ATOMS.MAX,
 * result unused. */
__device__ __forceinline__ void fmax_native(const AdvArgs &a)
{
    __shared__ float m[ADV_K];
    fill_shared(m, ADV_K, 0.0f);
    for (unsigned i = elem0(); i < a.n; i += elem_step())
        atomicMax((unsigned *)&m[a.key[i] & (ADV_K - 1)], __float_as_uint(adv_weight(a.val[i], i))); /* ATOMS.MAX */
    store_table<float>(a, m, ADV_K);
}

/* Stream compaction: the keys of elements with val >= 2 to the block's region of out (after the
 * grid's counts), each at a slot taken from one shared counter; out[block] receives the block's
 * count.  Per lane (AGG false): ATOMS.ADD, result used, every keeping lane of a warp on one word.
 * Warp-aggregated (AGG true): __ballot_sync of the keeping lanes, one ATOMS.ADD of their number by
 * the first, the base broadcast with __shfl_sync, each lane's slot by its rank. */
template <bool AGG> __device__ __forceinline__ void compact(const AdvArgs &a)
{
    __shared__ unsigned cnt;
    if (threadIdx.x == 0)
        cnt = 0;
    __syncthreads();
    unsigned *dst = (unsigned *)a.out + gridDim.x + (size_t)blockIdx.x * a.cap;
    const unsigned l = lane_id();
    for (unsigned i = elem0(); i < a.n; i += elem_step()) {
        const bool keep = a.val[i] >= 2.0f;
        if (!AGG) {
            if (keep)
                dst[atomicAdd(&cnt, 1u)] = a.key[i]; /* ATOMS.ADD */
            continue;
        }
        const unsigned m = __activemask();
        const unsigned b = __ballot_sync(m, keep);
        if (b == 0)
            continue;
        const unsigned first = (unsigned)__ffs(b) - 1u;
        unsigned base = 0;
        if (l == first)
            base = atomicAdd(&cnt, (unsigned)__popc(b)); /* ATOMS.ADD */
        base = __shfl_sync(m, base, first);
        if (keep)
            dst[base + (unsigned)__popc(b & ((1u << l) - 1u))] = a.key[i];
    }
    __syncthreads();
    if (threadIdx.x == 0)
        ((unsigned *)a.out)[blockIdx.x] = cnt;
}

#endif
