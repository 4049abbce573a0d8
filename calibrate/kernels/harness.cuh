/*
 * harness.cuh - the measurement harness every calibration kernel shares: two co-resident blocks
 * per SM pair up by %smid, walk their SM's list of work items, release all warps of an item at one
 * clock64 instant, let n warps issue k shared atomics each, and report first start and last end.
 * A family's kernel file only names the operand of its operation (au_ops::<family>, ops.cuh) in
 * AU_CAL_DEFINE_FAMILY.  Why it is built this way: docs/calibration.md, "The harness".
 */
#ifndef ATOMUTIL_CAL_HARNESS_CUH
#define ATOMUTIL_CAL_HARNESS_CUH

#include "clock.cuh"
#include "launch.h"
#include "ops.cuh"

#include <cuda_runtime.h>

/* Shared-memory regions.  32-bit: 32 rows of 32 words (one row = one 128-byte line, word j of a
 * row is in bank j).  64-bit: 64 rows of 16 words (word j covers banks 2j and 2j+1). */
#define AU_CAL_ROWS32 32
#define AU_CAL_ROWS64 64

/* sync scratch layout (words): sm_slot[MAX_SMID], sm_ord[MAX_SMID], status, next_ord, 2 spare,
 * go_time[nsm] (64-bit: 8-byte aligned, the header is an even number of words), arrive0[nsm],
 * ready1[nsm], done1[nsm]. */
struct au_cal_sync {
    unsigned *sm_slot, *sm_ord, *status, *next_ord, *arrive0, *ready1, *done1;
    long long *go_time;
    __device__ explicit au_cal_sync(const au_cal_args &g)
    {
        sm_slot = g.sync;
        sm_ord = g.sync + AU_CAL_MAX_SMID;
        status = g.sync + 2 * AU_CAL_MAX_SMID;
        next_ord = status + 1;
        go_time = reinterpret_cast<long long *>(status + 4);
        arrive0 = status + 4 + 2 * g.nsm;
        ready1 = arrive0 + g.nsm;
        done1 = ready1 + g.nsm;
    }
};

/* clock64 read only once dep is available: the read is predicated on a comparison with dep, so
 * it cannot be issued before the job whose result dep carries has completed.  Returns 0 in the
 * never-seen case dep == guard (the host then rejects the run). */
__device__ __forceinline__ long long au_clock_after(unsigned dep, unsigned guard)
{
    long long t = 0;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, %2;\n\t@p mov.u64 %0, %%clock64;\n\t}"
                 : "+l"(t)
                 : "r"(dep), "r"(guard)
                 : "memory");
    return t;
}

__device__ __forceinline__ long long au_globaltimer(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned au_load_volatile(const unsigned *p)
{
    return *(const volatile unsigned *)p;
}

__device__ __forceinline__ void au_store_volatile(unsigned *p, unsigned v)
{
    *(volatile unsigned *)p = v;
}

/* Waits until *p >= want.  A global flag written by the partner block takes 1,000-5,000 cycles
 * to be seen, so where the answer is needed promptly (sleep = false) the thread polls without
 * pausing: one load in flight at a time is no load on the SM.  Where the partner may be busy for
 * long (sleep = true) it pauses between polls.  False on abort or timeout (then every block is
 * told to stop). */
static __device__ bool au_wait_geq(const au_cal_args &g, const au_cal_sync &s, const unsigned *p, unsigned want,
                                   bool sleep)
{
    const long long t0 = au_clock();
    for (unsigned spin = 0; au_load_volatile(p) < want; ++spin) {
        if (spin % 16 == 15) {
            if (au_load_volatile(s.status) & AU_CAL_ABORT)
                return false;
            if (au_clock() - t0 > g.timeout) {
                atomicOr(s.status, AU_CAL_ERR_TIMEOUT | AU_CAL_ABORT);
                return false;
            }
        }
        if (sleep)
            __nanosleep(100);
    }
    return true;
}

/* Thread 0 of each block: find the partner block on this SM.  The first block on an SM (slot 0)
 * claims the next work-list ordinal and publishes it; the second (slot 1) reads it.  ord < 0 when
 * this block must not work. */
static __device__ void au_pair_up(const au_cal_args &g, const au_cal_sync &s, int *ord, int *slot, unsigned *smid_out)
{
    const unsigned smid = au_smid();
    *smid_out = smid;
    *ord = -1;
    *slot = -1;
    if (smid >= AU_CAL_MAX_SMID) {
        atomicOr(s.status, AU_CAL_ERR_SMID | AU_CAL_ABORT);
        return;
    }
    const unsigned sl = atomicAdd(&s.sm_slot[smid], 1u);
    *slot = (int)sl;
    if (sl == 0) {
        const unsigned o = atomicAdd(s.next_ord, 1u);
        if (o >= (unsigned)g.nsm) {
            atomicOr(s.status, AU_CAL_ERR_ORDINAL | AU_CAL_ABORT);
            atomicExch(&s.sm_ord[smid], 0xFFFFFFFFu); /* release a waiting partner */
            return;
        }
        atomicExch(&s.sm_ord[smid], o + 1);
        *ord = (int)o;
    } else if (sl == 1) {
        if (!au_wait_geq(g, s, &s.sm_ord[smid], 1u, true))
            return;
        const unsigned v = au_load_volatile(&s.sm_ord[smid]);
        *ord = v == 0xFFFFFFFFu ? -1 : (int)(v - 1);
    } else {
        atomicOr(s.status, AU_CAL_ERR_CROWDED | AU_CAL_ABORT);
    }
}

/* Thread 0 of each block, before a pass: the common start time.  A pass with n <= one block is
 * slot 0's alone (go = now + solo margin).  A pass over both blocks is a three-step handshake:
 * slot 0 arrives; slot 1, which may have waited long, says it is ready and polls without pause;
 * only then slot 0 picks go = now + margin and publishes it (go rises from pass to pass, so the
 * new value is its own sequence number). */
static __device__ bool au_pass_start(const au_cal_args &g, const au_cal_sync &s, int ord, int slot, bool two,
                                     unsigned seq, long long *go, long long *last_go)
{
    if (!two) {
        *go = au_clock() + g.solo_margin;
        return true;
    }
    if (slot == 0) {
        au_store_volatile(&s.arrive0[ord], seq);
        if (!au_wait_geq(g, s, &s.ready1[ord], seq, false))
            return false;
        *go = au_clock() + g.go_margin;
        *(volatile long long *)&s.go_time[ord] = *go;
        return true;
    }
    if (!au_wait_geq(g, s, &s.arrive0[ord], seq, true))
        return false;
    au_store_volatile(&s.ready1[ord], seq);
    const long long t0 = au_clock();
    long long v;
    for (unsigned spin = 0; (v = *(volatile long long *)&s.go_time[ord]) <= *last_go; ++spin)
        if (spin % 16 == 15 && ((au_load_volatile(s.status) & AU_CAL_ABORT) || au_clock() - t0 > g.timeout)) {
            atomicOr(s.status, AU_CAL_ERR_TIMEOUT | AU_CAL_ABORT);
            return false;
        }
    *go = *last_go = v;
    return true;
}

/* Thread 0, after a pass over both blocks: slot 1 reports that its warps are done and slot 0 waits
 * for it, so that slot 0 never starts its next (possibly solo) pass while slot 1's jobs still
 * occupy the atomic unit. */
static __device__ bool au_pass_end(const au_cal_args &g, const au_cal_sync &s, int ord, int slot, unsigned seq)
{
    if (slot == 1) {
        au_store_volatile(&s.done1[ord], seq);
        return true;
    }
    return au_wait_geq(g, s, &s.done1[ord], seq, false);
}

/* Word index of lane `lane` of block warp `w` in the 32-bit region.  Each warp owns its own words
 * (warps never touch each other's words: no CAS failures, no cross-warp folding). */
__device__ __forceinline__ int au_index32(int pattern, int w, int lane)
{
    switch (pattern) {
    case AU_CAL_PAT_WORD: return w;                 /* row 0, bank w */
    case AU_CAL_PAT_DISTINCT: return w * 32 + lane; /* row w, bank lane */
    default: return lane * 32 + w;                  /* row lane, bank w */
    }
}

/* Same for the 64-bit region (16 words per 128-byte row). */
__device__ __forceinline__ int au_index64(int pattern, int w, int lane)
{
    switch (pattern) {
    case AU_CAL_PAT_WORD: return w; /* rows 0-1 */
    case AU_CAL_PAT_DISTINCT: return (2 * w + (lane >> 4)) * 16 + (lane & 15);
    default: return (lane + 32 * (w >> 4)) * 16 + (w & 15); /* one bank pair per warp */
    }
}

/* k back-to-back jobs of Op on one address.  The address never depends on a result, so the warp
 * may have several jobs in flight: the closed loop keeps its share of the queue filled.  The
 * operand v is the same for every job (a run-time value the compiler cannot fold): besides the
 * atomic, a job then issues at most the add that folds its result into the checksum, and the
 * unit, not instruction issue, sets the pace (operands computed per job cost up to 1.7 cycles per
 * job where the unit needs 1.0; calibrate/tools/unit_bound.cu, docs/calibration.md). */
template <class Op> __device__ __forceinline__ unsigned au_run_jobs(typename Op::T *p, int k, unsigned seed)
{
    const unsigned v = seed + 1u; /* 1 at run time */
    unsigned acc = 0;
    /* 8 independent jobs per iteration: a warp keeps up to 8 in flight, and S at low n depends
     * on it (builds that kept 2-4 in flight measured 3-4x more cycles per job at n = 1, a = 1
     * and up to 80 % more at saturation for a <= 4 on an H200) */
#pragma unroll 8
    for (int i = 0; i < k; ++i)
        acc += Op::job(p, v);
    return acc;
}

/* Index of this lane's word for an operation of type T. */
template <class T> __device__ __forceinline__ int au_word_index(int pattern, int w, int lane)
{
    return sizeof(T) == 8 ? au_index64(pattern, w, lane) : au_index32(pattern, w, lane);
}

/* One warp's part of one pass, from the common start: k jobs on *p (active lanes only), and the
 * end time once the last job has completed (a load of the same word is ordered after the lane's
 * atomics; the clock read waits for that load's value).  Nothing between the release and the
 * first job may wait on the shared-memory pipe (a special-register read, a shared load): behind
 * other warps' queued jobs that wait is hundreds of cycles, and each warp's start would queue. */
template <class Op>
__device__ __forceinline__ void au_measure_warp(typename Op::T *p, unsigned fl, int k, const au_cal_args &g,
                                                long long *start, long long *end)
{
    typedef typename Op::T T;
    /* the start's low 32 bits only: one register held through the jobs, not two (a pass is far
     * shorter than 2^32 cycles, so the end recovers the rest) */
    const unsigned t0 = (unsigned)au_clock();
    unsigned acc = 0;
    if (fl & 4u) {
        acc = au_run_jobs<Op>(p, k, g.seed);
        acc += (unsigned)*(volatile T *)p;
    }
    __syncwarp();
    const long long t1 = au_clock_after(acc, g.guard);
    if (acc == g.guard) /* runtime-false: keeps every job and the final load alive */
        g.sink[threadIdx.x] = acc;
    if (fl & 8u) {
        *start = t1 - (long long)((unsigned)t1 - t0);
        *end = t1;
    }
}

/* ATOMS.CAS (32-bit), the operation of the c CAS warps of every family but generic: cmp = val =
 * v - 1 = 0 on words that hold 0, so every CAS succeeds. */
struct au_op_cas_mix {
    typedef unsigned T;
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return au_ops::cas::job(p, v - 1u);
    }
};

/* The generic family's c warps: the generic ATOM.E.CAS, which the generic counter set counts as a
 * CAS job of that family (smsp__inst_executed_op_generic_atom_dot_cas) and which costs more than
 * ATOMS.CAS at one pass (docs/opcodes.md, "Generic atomics"). */
struct au_op_gen_cas_mix {
    typedef unsigned T;
    static __device__ __forceinline__ unsigned job(T *p, unsigned v)
    {
        return au_ops::gen_cas::job(p, v - 1u);
    }
};

/* The largest block: AU_CAL_BLOCKS_PER_SM blocks fill an SM (runner.c), so half the threads it
 * holds (AU_SM_THREADS, ops.cuh), at most 1024: 1024 on sm_80, 90, 100 and 103; 768 on sm_86-89,
 * 110 and 120-121; 512 on sm_75. */
#define AU_CAL_MAX_THREADS (AU_SM_THREADS / AU_CAL_BLOCKS_PER_SM < 1024 ? AU_SM_THREADS / AU_CAL_BLOCKS_PER_SM : 1024)

template <class Op>
__global__ void __launch_bounds__(AU_CAL_MAX_THREADS, AU_CAL_BLOCKS_PER_SM) au_cal_kernel(au_cal_args g)
{
    __shared__ unsigned s32[AU_CAL_ROWS32 * 32];
    __shared__ unsigned long long s64[AU_CAL_ROWS64 * 16];
    __shared__ long long w_start[32], w_end[32];
    __shared__ long long s_go;
    __shared__ int s_ord, s_slot, s_ok, s_zero;
    __shared__ unsigned s_smid;

    const au_cal_sync s(g);
    const int tid = threadIdx.x, warp = tid >> 5;
    if (tid == 0) {
        int o, sl;
        unsigned smid;
        au_pair_up(g, s, &o, &sl, &smid);
        s_ord = o;
        s_slot = sl;
        s_smid = smid;
        s_zero = 0;
        if (o >= 0 && sl == 0) {
            g.clocks[4 * o + 0] = au_clock();
            g.clocks[4 * o + 1] = au_globaltimer();
        }
    }
    __syncthreads();
    const int ord = s_ord, slot = s_slot;
    if (ord < 0)
        return;

    const int wlo = slot * g.warps_per_block; /* first point warp held by this block */
    const int first = g.first[ord], last = g.first[ord + 1];
    long long last_go = 0; /* slot 1's thread 0: the partner's last go */
    for (int i = first; i < last; ++i) {
        const au_cal_item it = g.items[i];
        const bool two = it.n > g.warps_per_block;
        if (slot == 1 && !two)
            continue; /* slot 0's alone; slot 1 sleeps in its next wait */
        int nw = it.n - wlo;
        nw = nw < 0 ? 0 : nw > g.warps_per_block ? g.warps_per_block : nw;
        /* pass 0 warms up (instruction cache, the words, the unit's state); pass 1 is timed */
        for (int pass = 0; pass < 2; ++pass) {
            const unsigned seq = 2u * (unsigned)(i - first) + (unsigned)pass + 1u;
            if (tid == 0) {
                long long go = 0;
                s_ok = au_pass_start(g, s, ord, slot, two, seq, &go, &last_go);
                s_go = go;
            }
            __syncthreads();
            if (!s_ok)
                return;
            /* Everything a warp needs after the release is computed now and made to depend on a
             * shared load (s_zero, always 0): the compiler can then not recompute it after the
             * release from the thread index, whose read would queue behind other warps' jobs.
             * (k is the block's, kept in a uniform register: it needs no such guard, and a
             * per-thread copy would cost the register that an eighth job in flight needs.) */
            const int lane = tid & 31;
            int idx = 0;
            const int k = it.k;
            unsigned fl = 0; /* 1: measures, 2: issues CAS, 4: this lane is active, 8: lane 0 */
            if (warp < nw) {
                const bool cas = au_cal_is_cas_warp(wlo + warp, it.n, it.c);
                const int lanes = cas ? it.lanes_cas : it.lanes_op;
                idx = cas ? au_index32(AU_CAL_PAT_BANK, warp, lane)
                          : au_word_index<typename Op::T>(it.pattern, warp, lane);
                fl = 1u | (cas ? 2u : 0u) | (lane < lanes ? 4u : 0u) | (lane == 0 ? 8u : 0u);
                if (fl & 4u) { /* every pass starts from the same words: 0 */
                    if (cas)
                        *(volatile unsigned *)(s32 + idx) = 0;
                    else
                        *(volatile typename Op::T *)(Op::region(s32, s64) + idx) = 0;
                }
                __syncwarp();
            }
            const int z = *(volatile int *)&s_zero;
            idx += z;
            fl |= (unsigned)z;
            /* The start: one warp watches the clock and the barrier releases all the others as it
             * arrives (dozens of warps polling the clock would delay each other).  T begins at the
             * first start of either block; the host rejects a two-block pass whose blocks started
             * apart (slot 1 received go too late). */
            if (warp == 0) {
                const long long go = s_go;
                while (au_clock() < go) {
                }
            }
            __syncthreads();
            if (fl & 1u) {
                if (fl & 2u)
                    au_measure_warp<typename Op::CasMix>(s32 + idx, fl, k, g, &w_start[warp], &w_end[warp]);
                else
                    au_measure_warp<Op>(Op::region(s32, s64) + idx, fl, k, g, &w_start[warp], &w_end[warp]);
            }
            __syncthreads();
            if (two && tid == 0)
                s_ok = au_pass_end(g, s, ord, slot, seq);
            __syncthreads();
            if (!s_ok)
                return;
        }
        if (tid == 0) {
            au_cal_slot r = {0, 0, s_go, (int)s_smid, nw};
            if (nw > 0) {
                r.start = w_start[0];
                r.end = w_end[0];
                for (int w = 1; w < nw; ++w) {
                    r.start = w_start[w] < r.start ? w_start[w] : r.start;
                    r.end = w_end[w] > r.end ? w_end[w] : r.end;
                }
            }
            g.slots[2 * i + slot] = r;
        }
    }
    if (tid == 0 && slot == 0) {
        g.clocks[4 * ord + 2] = au_clock();
        g.clocks[4 * ord + 3] = au_globaltimer();
    }
}

/* The words of an operation on T: the 32-bit or the 64-bit region. */
template <class T> __device__ __forceinline__ T *au_cal_region(unsigned *s32, unsigned long long *s64)
{
    return sizeof(T) == 8 ? reinterpret_cast<T *>(s64) : reinterpret_cast<T *>(s32);
}

/* Instantiates one family: its op struct au_op_<name> (au_ops::<name> with the operand x, an
 * expression of the run-time value v = 1, or a constant), its kernel au_cal_kernel<au_op_<name>>,
 * launcher and occupancy query. */
#define AU_CAL_DEFINE_FAMILY(name, x) AU_CAL_DEFINE_FAMILY_MIX(name, x, au_op_cas_mix)

/* The same with the operation of the c CAS warps named (au_op_cas_mix or au_op_gen_cas_mix). */
#define AU_CAL_DEFINE_FAMILY_MIX(name, x, mix)                                                                      \
    struct au_op_##name {                                                                                           \
        typedef au_ops::name::T T;                                                                                  \
        typedef mix CasMix;                                                                                         \
        static __device__ __forceinline__ T *region(unsigned *s32, unsigned long long *s64)                         \
        {                                                                                                           \
            return au_cal_region<T>(s32, s64);                                                                      \
        }                                                                                                           \
        static __device__ __forceinline__ unsigned job(T *p, unsigned v)                                            \
        {                                                                                                           \
            (void)v;                                                                                                \
            return (unsigned)au_ops::name::job(p, x);                                                               \
        }                                                                                                           \
    };                                                                                                              \
    extern "C" int au_cal_launch_##name(const au_cal_args *args, int block_threads)                                 \
    {                                                                                                               \
        au_cal_args a = *args;                                                                                      \
        void *params[] = {&a};                                                                                      \
        return (int)cudaLaunchCooperativeKernel((const void *)au_cal_kernel<au_op_##name>,                          \
                                                dim3(AU_CAL_BLOCKS_PER_SM * a.nsm), dim3(block_threads), params, 0, \
                                                0);                                                                 \
    }                                                                                                               \
    extern "C" int au_cal_occupancy_##name(int block_threads, int *blocks_per_sm)                                   \
    {                                                                                                               \
        return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, au_cal_kernel<au_op_##name>,       \
                                                                  block_threads, 0);                                \
    }

#endif
