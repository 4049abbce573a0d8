/*
 * launch.h - the interface between the C driver of atomutil-calibrate and its CUDA kernels: the
 * work item, the per-block result record, the kernel arguments, and one extern "C" launcher and
 * occupancy query per kernel family (declared through the family registry, model/include/atomutil/families.def); and the arguments
 * and launchers of the one kernel of the dsmem (cluster) families, kernels/dsmem.cu.
 * Included by C (the driver, the CPU tests) and by CUDA (kernels/harness.cuh).
 */
#ifndef ATOMUTIL_CAL_LAUNCH_H
#define ATOMUTIL_CAL_LAUNCH_H

#ifdef __CUDACC__
#define AU_CAL_HD __host__ __device__
#else
#define AU_CAL_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound of %smid values (the physical SM ids may be sparse; %nsmid is 132..144 on GH100). */
#define AU_CAL_MAX_SMID      1024
/* Two co-resident blocks per SM: one block holds at most 32 warps, n goes up to 64. */
#define AU_CAL_BLOCKS_PER_SM 2

/* Lane patterns: how the active lanes of one warp-instruction address shared memory. */
enum {
    AU_CAL_PAT_BANK = 0,     /* lanes on distinct words of one bank: a lanes -> a wavefronts */
    AU_CAL_PAT_WORD = 1,     /* all active lanes on one word */
    AU_CAL_PAT_DISTINCT = 2, /* lanes in distinct banks (conflict-free) */
    AU_CAL_PAT_SPREAD = 3,   /* dsmem families: all 32 lanes, a on each of 32/a words in distinct banks */
};

/* One timed execution of a grid point on one SM: n warps, c of them issuing ATOMS.CAS (32-bit) and
 * n - c the family's operation, each warp k jobs with its first `lanes` lanes active. */
typedef struct au_cal_item {
    short n, c;
    short lanes_op;  /* active lanes of the family's warps */
    short lanes_cas; /* active lanes of the CAS warps */
    int k;           /* jobs per warp */
    int pattern;     /* AU_CAL_PAT_* of the family's warps (CAS warps: always AU_CAL_PAT_BANK) */
} au_cal_item;

/* What one block reports for one item (timed pass only). */
typedef struct au_cal_slot {
    long long start; /* earliest warp start (clock64 of the SM) */
    long long end;   /* latest warp end */
    long long go;    /* the common start time both blocks waited for */
    int smid;        /* %smid the block ran on */
    int warps;       /* warps of this block that measured (0: slot idle or item not run) */
} au_cal_slot;

/* Status bits the kernel sets in *status. */
enum {
    AU_CAL_ERR_SMID = 1u << 0,    /* %smid >= AU_CAL_MAX_SMID */
    AU_CAL_ERR_CROWDED = 1u << 1, /* more than two blocks on one SM */
    AU_CAL_ERR_TIMEOUT = 1u << 2, /* a partner block did not arrive in time */
    AU_CAL_ERR_ORDINAL = 1u << 3, /* more SMs claimed work than the launch has work lists */
    AU_CAL_ABORT = 1u << 31,      /* set with any error: every block stops */
};

/* Device pointers and parameters of one launch.  Items of SM ordinal k (the k-th SM that paired
 * up, not its %smid) are items[first[k] .. first[k+1]).  The sync block must be zeroed before
 * each launch (au_cal_sync_words() words). */
typedef struct au_cal_args {
    const au_cal_item *items;
    const int *first;    /* [nsm + 1] */
    au_cal_slot *slots;  /* [nitems * 2]: slot 0 = first block of the pair */
    unsigned *sync;      /* zeroed scratch, see layout in harness.cuh */
    long long *clocks;   /* [nsm * 4]: clock64 and %globaltimer at start and end of ordinal k */
    unsigned *sink;      /* written only when a runtime-false condition holds */
    unsigned guard;      /* the value that condition compares with (never produced) */
    unsigned seed;       /* 0 at run time; the compiler cannot know it */
    int nsm;             /* SM ordinals = work lists = grid / 2 */
    int warps_per_block; /* warps of one block; point warp w runs in block w / warps_per_block */
    long long timeout;   /* cycles a block waits for its partner before giving up */
    int go_margin;       /* cycles from publishing go to go, passes over both blocks */
    int solo_margin;     /* cycles from picking go to go, passes of one block */
} au_cal_args;

/* Zeroed scratch words a launch needs for nsm ordinals. */
static inline unsigned long au_cal_sync_words(int nsm)
{
    return 2ul * AU_CAL_MAX_SMID + 4ul + 5ul * (unsigned long)nsm;
}

/* Whether warp w (0..n-1) of a point issues ATOMS.CAS: c of the n warps, evenly spaced in the
 * order "sub-partition first" (warp w runs on sub-partition w % 4), so that every sub-partition
 * gets its share of CAS warps; spacing them in plain warp order would put c = n/2 CAS warps on
 * two sub-partitions only. */
AU_CAL_HD static inline int au_cal_is_cas_warp(int w, int n, int c)
{
    int j = w / 4; /* rank of w in sub-partition-major order */
    for (int s = 0; s < w % 4; ++s)
        j += (n - s + 3) / 4; /* warps of sub-partition s among 0..n-1 */
    return (int)(((long)(j + 1) * c) / n) > (int)(((long)j * c) / n);
}

/* Launchers: return a cudaError_t value (0 = success). block_threads = 32 * warps_per_block;
 * the grid is AU_CAL_BLOCKS_PER_SM * args->nsm blocks, launched cooperatively so that all are
 * resident at once.  The occupancy query returns resident blocks per SM for that block size. */
#define AU_FAMILY(name, opcode, kind, wf_per_pass, width, pattern, max_a, cgrid, what) \
    int au_cal_launch_##name(const au_cal_args *args, int block_threads);              \
    int au_cal_occupancy_##name(int block_threads, int *blocks_per_sm);
#include "atomutil/families.def"
#undef AU_FAMILY

/* The dsmem families' kernel (kernels/dsmem.cu): clusters of `cluster` blocks, one block of n
 * warps per SM, each warp k jobs atomicAdd(cluster.map_shared_rank(bins, (rank + shift) %
 * cluster) + word, 1u), lane l of warp w on word w * 32 + (l % (32 / a) + w) % 32 (row = 0) or
 * (l % (32 / a) + w) % 32 (row = 1: every warp in row 0). */
typedef struct au_cal_dsmem_args {
    long long *cycles; /* [passes - 1][blocks]: clock64 cycles of each timed pass per block */
    int *smid;         /* [blocks]: %smid of each block (-1: built without sm_90 code) */
    unsigned *sink;    /* written only when a runtime-false condition holds */
    unsigned guard;    /* the value that condition compares with (never produced) */
    unsigned seed;     /* 0 at run time; the compiler cannot know it */
    int k;             /* jobs per warp and pass */
    int a;             /* lanes on each word: 1, 2, 4, 8, 16 or 32 */
    int shift;         /* target rank = (own rank + shift) % cluster size; < 0: rank 0 (hot) */
    int row;           /* 1: every warp's words in row 0; 0: warp w's in row w */
    int passes;        /* a warm-up pass, then passes - 1 timed ones */
} au_cal_dsmem_args;

/* Largest cluster size that needs cudaFuncAttributeNonPortableClusterSizeAllowed: 8 is portable. */
#define AU_CAL_DSMEM_PORTABLE_CLUSTER 8

/* Kernel attributes: smem_bytes of dynamic shared memory per block, non-portable cluster sizes
 * allowed.  Returns a cudaError_t value. */
int au_cal_dsmem_setup(int smem_bytes);
/* Clusters of `cluster` blocks of block_threads threads and smem_bytes that can be resident at
 * once (cudaOccupancyMaxActiveClusters), into *clusters. */
int au_cal_dsmem_max_clusters(int cluster, int block_threads, int smem_bytes, int *clusters);
/* Launches clusters * cluster blocks of block_threads threads in clusters of `cluster`. */
int au_cal_dsmem_launch(const au_cal_dsmem_args *args, int cluster, int clusters, int block_threads, int smem_bytes);

/* The load-latency chase (kernels/latency.cu): one thread, `warm` loads then `loads` timed ones
 * from buf[start], each the next word index; *cycles: the timed loads' clock64() cycles.  Returns
 * a cudaError_t value. */
int au_cal_chase_launch(const unsigned long long *buf, unsigned long long start, long warm, long loads,
                        unsigned long long *out, long long *cycles);
/* MATCH.ANY's cost (kernels/latency.cu): `blocks` blocks of `warps` warps, each warp `iters`
 * dependent MATCH.ANY of 32 distinct lane values; cycles[b] block b's span (-1: no MATCH). */
int au_cal_match_launch(int blocks, int warps, long iters, long long *cycles, unsigned *sink);

#ifdef __cplusplus
}
#endif
#endif
