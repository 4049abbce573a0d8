/*
 * atomutil/queue.h - the queue model: a launch's counters, the family registry, and the
 * load-dependent single-server model that turns them into busy time, utilization and a verdict of
 * the shared-memory atomic unit, per launch and per opcode class (part of atomutil/model.h).
 */
#ifndef ATOMUTIL_QUEUE_H
#define ATOMUTIL_QUEUE_H

#include "atomutil/table.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- queue model */

/* Counter presence bits of au_counters.have. */
enum {
    AU_C_JOBS = 1u << 0,
    AU_C_CAS = 1u << 1,
    AU_C_WAVEFRONTS = 1u << 2,
    AU_C_ACTIVE_CYCLES = 1u << 3,
    AU_C_WARPS = 1u << 4,
    AU_C_QUEUE = 1u << 5,              /* a measured queue length (overrides warps) */
    AU_C_WAVEFRONTS_MAX = 1u << 6,     /* shared-atomic wavefronts of the busiest SM (optional) */
    AU_C_ACTIVE_MAX = 1u << 7,         /* active cycles of the longest-active SM (optional) */
    AU_C_SHARED_WAVEFRONTS = 1u << 8,  /* all shared-memory wavefronts: loads, stores, atomics (optional) */
    AU_C_LD_INST = 1u << 9,            /* shared-memory load warp-instructions, LDS (optional) */
    AU_C_ST_INST = 1u << 10,           /* shared-memory store warp-instructions, STS (optional) */
    AU_C_GENERIC = 1u << 11,           /* generic-address atomic warp-instructions, ATOM (cluster set) */
    AU_C_DSHARED_WF = 1u << 12,        /* wavefronts sent to other SMs' shared memory (cluster set) */
    AU_C_DSHARED_XBAR = 1u << 13,      /* cycles the SM-to-SM (DSMEM) interface was busy (cluster set) */
    AU_C_CLUSTER = 1u << 14,           /* the launch's cluster size (blocks per cluster) */
    AU_C_DSHARED_SECT = 1u << 15,      /* sectors of requests to other SMs' shared memory, every
                                      operation: loads, stores, atomics (cluster set, optional) */
    AU_C_DSHARED_SECT_ATOM = 1u << 16, /* ... of which atomics' (cluster set, optional) */
    AU_C_GENERIC_CAS = 1u << 17,       /* of the generic atomics, ATOM.CAS (generic set, optional) */
    AU_C_XBAR_STALLED = 1u << 18,      /* cycles the SM's requests to the crossbar were stalled, every
                                        * memory (dsmem set) */
    AU_C_XBAR_ACTIVE = 1u << 19,       /* cycles they were active, every memory (dsmem set) */
    AU_C_DSHARED_REQ_ATOM = 1u << 20,  /* atomic requests to other SMs' shared memory (dsmem set) */
    AU_C_PASSES = 1u << 21,            /* passes the launch was measured in (> 1: replayed) */
    AU_C_LOOP_ENTRIES = 1u << 22,      /* entries of the CAS loops (ATOMS.CAST.SPIN*): executions per
                                          instruction, from an ncu report's source counters */
    AU_C_L2_HIT = 1u << 23,            /* L2-hit sectors of the SMs' global reads (standard set, optional) */
    AU_C_DRAM_READ = 1u << 24,         /* bytes read from DRAM (standard set, optional; not on every chip) */
};
/* The sector counters that tell DSMEM atomics from other DSMEM traffic (docs/model.md, "DSMEM"). */
#define AU_C_DSHARED_SECTORS (AU_C_DSHARED_SECT | AU_C_DSHARED_SECT_ATOM)
/* The counters only the cluster set has: a launch with them was measured with it. */
#define AU_C_DSHARED_PATH    (AU_C_DSHARED_WF | AU_C_DSHARED_XBAR)
/* The counters that price distributed-shared-memory atomics (docs/model.md, "DSMEM"). */
#define AU_C_DSMEM           (AU_C_GENERIC | AU_C_DSHARED_WF | AU_C_DSHARED_XBAR)
/* The counters that make the DSMEM path's busy time and the local jobs exact: the stalls behind
 * the receiving SMs and the remote requests (docs/model.md, "DSMEM"). */
#define AU_C_DSMEM_EXACT     (AU_C_XBAR_STALLED | AU_C_XBAR_ACTIVE | AU_C_DSHARED_REQ_ATOM)
/* The counters that price the loads of CAS loops (docs/model.md, "CAS loops"). */
#define AU_C_LOOP_LOADS      (AU_C_SHARED_WAVEFRONTS | AU_C_LD_INST | AU_C_ST_INST)
#define AU_C_REQUIRED        (AU_C_JOBS | AU_C_CAS | AU_C_WAVEFRONTS | AU_C_ACTIVE_CYCLES | AU_C_WARPS)

/* Counters of one launch, either of one SM or GPU-wide:
 * GPU-wide: jobs/cas_jobs/wavefronts are sums over all SMs, active_cycles is the average over
 * all SMs (sm__cycles_active.avg), warps the average resident warps per active cycle. */
typedef struct au_counters {
    double jobs;                 /* J: shared-atomic warp-instructions (ATOMS.*, CAS retries included) */
    double cas_jobs;             /* of which ATOMS.CAS */
    double wavefronts;           /* shared-atomic wavefronts */
    double active_cycles;        /* T */
    double warps;                /* resident warps per active cycle (queue-length estimate) */
    double queue;                /* measured queue length, when AU_C_QUEUE */
    unsigned have;               /* AU_C_* bits of the fields that were collected */
    double wavefronts_max;       /* GPU-wide: the most shared-atomic wavefronts of one SM (L1TEX .max) */
    double active_max;           /* GPU-wide: the most active cycles of one SM (sm__cycles_active.max) */
    double shared_wavefronts;    /* every shared-memory wavefront (l1tex ..._mem_shared.sum) */
    double ld_inst;              /* LDS warp-instructions */
    double st_inst;              /* STS warp-instructions */
    double generic_jobs;         /* ATOM (generic address) warp-instructions: local, remote or global */
    double generic_cas;          /* of which ATOM.CAS */
    double dshared_wavefronts;   /* wavefronts of requests to other SMs' shared memory (sender side) */
    double dshared_xbar;         /* cycles the sender's L1TEX-to-crossbar DSMEM interface was active */
    double cluster_size;         /* blocks per cluster (1 without clusters) */
    double dshared_sectors;      /* sectors of requests to other SMs' shared memory */
    double dshared_sectors_atom; /* ... of atomic requests */
    unsigned wrong_unit;         /* AU_C_* bits of counters given in a unit of another kind (not in have) */
    double xbar_stalled;         /* cycles the SM's requests to the crossbar were stalled (every memory) */
    double xbar_active;          /* cycles they were active (every memory; dshared_xbar is DSMEM's) */
    double dshared_requests;     /* atomic requests to other SMs' shared memory */
    double passes;               /* passes the launch was measured in (kernel replay when > 1) */
    double blocks;               /* blocks of the launch's grid (0 unknown: a report without its column) */
    double loop_entries;         /* warp-level entries of its CAS loops, GPU-wide (AU_C_LOOP_ENTRIES) */
    double l2_hit_sectors;       /* sectors of the SMs' global reads that hit in L2 (AU_C_L2_HIT) */
    double dram_read_bytes;      /* bytes read from DRAM, by any unit (AU_C_DRAM_READ) */
} au_counters;

/* Wavefronts of the loads of CAS loops (the LDS that precedes every attempt of the loops the
 * compiler emits for atomicAdd on float or 64-bit shared words, and for 64-bit And/Or/Xor), GPU-wide
 * sums, for loop_jobs attempts (ATOMS.CAST.SPIN* jobs).  The non-atomic shared wavefronts W_o =
 * shared - atomic wavefronts belong to LDS and STS instructions; each attempt has one LDS.  When
 * the loads and stores are the loops' alone (ld + st <= loop_jobs, to 0.5 %), *w = W_o exactly and
 * the function returns 1.  Otherwise it returns 2 with the estimate *w = W_o * loop_jobs / (ld + st)
 * (W_o shared by instruction) and the bounds *lo = loop_jobs (a load takes at least one wavefront)
 * and *hi = W_o (the other loads may be the loops' own: a 64-bit min/max loop loads once more
 * where no CAS is needed).  0 when the counters are missing (*w = *lo = *hi = -1) or there are no
 * loop jobs (0).  au_launch_eval narrows the estimate with the kernel's code. */
int au_loop_loads(const au_counters *gpu, double loop_jobs, double *w, double *lo, double *hi);

/* The hardware metrics the model reads, by their Nsight Compute / CUPTI names (with rollup).
 * counter = the AU_C_* bit it fills (0 for descriptive metrics); required = needed for U. */
typedef struct au_metric_def {
    const char *name;
    unsigned counter;
    int required;
    const char *meaning;
    unsigned sets;    /* AU_SET_* it belongs to */
    const char *unit; /* its base unit ("inst", "cycle", ...): a value given in another is not used */
} au_metric_def;
/* Counter sets, one pass each on every chip (docs/counters.md): the standard set; the cluster set
 * for launches with clusters, which trades the local shared-atomic wavefronts and the CAS-loop
 * load counters for the counters that see distributed-shared-memory atomics; the generic set for
 * kernels whose code has generic atomics that can land in shared memory, which trades the CAS-loop
 * load instruction counters for the generic atomics' instruction counters; and the dsmem set for
 * launches with clusters of kernels whose code has generic atomics: the cluster set's counters,
 * the local ones and those that make DSMEM exact, in several passes (kernel replay). */
enum { AU_SET_STD = 1u, AU_SET_CLUSTER = 2u, AU_SET_GENERIC = 4u, AU_SET_DSMEM = 8u, AU_SET_ALL = 15u };
/* Set lists of metrics: the standard set's that the generic set keeps. */
#define AU_SET_STD_GENERIC   (AU_SET_STD | AU_SET_GENERIC)
/* ... the cluster set's that the dsmem set keeps. */
#define AU_SET_CLUSTER_DSMEM (AU_SET_CLUSTER | AU_SET_DSMEM)
/* The metric list, in the order printed by `atomutil-profile --print-ncu-metrics`. */
const au_metric_def *au_metric_defs(size_t *count);
/* 1 for a metric a profiler collects per launch (the model's counters and the duration); 0 for
 * those the launch or the driver tells (device name, SM count, cluster size, passes). */
int au_metric_collected(const au_metric_def *d);
/* 1 for a metric ncu's --metrics takes (every one but the passes, which ncu writes itself). */
int au_metric_for_ncu(const au_metric_def *d);
/* Well-known descriptive metrics (not counters of the model). */
#define AU_METRIC_DEVICE_NAME  "device__attribute_display_name"
#define AU_METRIC_SM_COUNT     "device__attribute_multiprocessor_count"
#define AU_METRIC_DURATION     "gpu__time_duration.sum"
#define AU_METRIC_CLUSTER_SIZE "launch__cluster_size"
#define AU_METRIC_PASSES       "profiler__replayer_passes"
/* Stores value v of metric `name` into c (sets the have bit); returns 1 if the metric is one of
 * the model's counters, 0 otherwise. */
int au_counters_set(au_counters *c, const char *name, double v);

typedef enum au_verdict {
    AU_VERDICT_UNKNOWN = 0, /* counters missing or not right (AU_F_UNUSABLE), DSMEM not calibrated */
    AU_VERDICT_NOT_LIMITING,
    AU_VERDICT_SIGNIFICANT,
    AU_VERDICT_BOUND,
    AU_VERDICT_UNCERTAIN, /* U has a range (util_lo..util_hi) that spans more than one verdict */
} au_verdict;

/* How busy time is priced (docs/model.md):
 *   AU_BUSY_SATURATED (default): each job costs the table's service time at the largest queue
 *     length, S(n_max, a, c): the unit's capacity used, the figure validated against ground truth
 *     (docs/validation.md).
 *   AU_BUSY_QUEUE: each job costs S(N, a, c) at the estimated queue length N, as in the source
 *     paper; a few latency-bound warps then count as a busy unit. */
typedef enum au_busy_mode { AU_BUSY_SATURATED = 0, AU_BUSY_QUEUE = 1 } au_busy_mode;
const char *au_busy_mode_name(au_busy_mode m); /* "saturated", "queue" */

typedef struct au_thresholds {
    double bound;       /* U >= bound: atomic-bound (default 0.80) */
    double significant; /* U >= significant: significant (default 0.40) */
} au_thresholds;
#define AU_THRESHOLDS_DEFAULT ((au_thresholds){0.80, 0.40})

/* The model's quantities for one SM, or per SM on average for GPU-wide input. */
typedef struct au_result {
    double jobs;       /* J per SM (GPU-wide: J / sm_count) */
    double a;          /* serialized passes per job: wavefronts / (J + J_cas) */
    double queue_len;  /* N */
    double cas_queued; /* c = N * J_cas / J */
    double service;    /* S(N, a, c), cycles per job */
    double busy;       /* B = J * S, cycles */
    double active;     /* T, cycles */
    double util;       /* U = B / T (fraction; 0 without atomics) */
    au_flags flags;    /* AU_F_* */
    unsigned missing;  /* AU_C_* bits that were needed but absent */
    au_verdict verdict;
    /* GPU-wide input with the .max rollups (0 when absent): the busiest SM's wavefronts over the
     * mean SM's, and a lower bound of the most utilized SM's U: the larger of U (a weighted mean
     * over SMs) and the busiest SM's busy cycles (B * imbalance, same a and S) over the
     * longest-active SM's active cycles */
    double imbalance;
    double util_busiest;
    /* with AU_F_LOOP_LOADS_ESTIMATED: U with the CAS loops' load wavefronts at their lower and upper
     * bounds (util is the point estimate between them); 0 otherwise */
    double util_lo, util_hi;
    /* with AU_F_DSMEM: U of the local unit (this SM's shared atomics, local generic ones included)
     * and of the DSMEM path (requests to other SMs); util is the larger */
    double util_local, util_remote;
    /* with AU_F_DSMEM: U of a hot receiver, the busiest SM serving every job of its cluster (docs/model.md,
     * "DSMEM"); util is it then.  0 when the launch has none */
    double util_hot;
    /* with a flag of AU_F_UNUSABLE: why, one line: the missing metrics' names, or the check that
     * failed ("600 CAS jobs, more than all 500 jobs") */
    char why[256];
} au_result;

/* The busiest-SM figures of res (imbalance, util_busiest; flag AU_F_IMBALANCED) from GPU-wide
 * counters with the .max rollups; leaves them 0 without them.  au_model_eval calls it. */
void au_result_busiest(au_result *res, const au_counters *gpu, int sm_count);

/* GPU-wide evaluation from rollups.  family prices the non-CAS jobs ("add" unless the user knows
 * better).  sm_count > 0.  Returns AU_OK even when counters are missing or cannot be right (then
 * res->flags has one of AU_F_UNUSABLE, res->why says why, verdict UNKNOWN and every figure 0);
 * < 0 only for invalid arguments or an unknown family.  Required: jobs, and with jobs CAS jobs,
 * active cycles, the shared-atomic wavefronts (the standard set) or the three DSMEM counters (the
 * cluster set), warps in AU_BUSY_QUEUE. */
int au_model_eval(const au_table *t, const char *family, const au_counters *gpu, int sm_count, const au_thresholds *thr,
                  au_busy_mode busy, au_result *res);
const char *au_verdict_name(au_verdict v); /* "atomic-bound", "significant", "not-limiting", "unknown", "uncertain" */
/* The verdict of utilization u (a fraction) under thr (NULL: AU_THRESHOLDS_DEFAULT). */
au_verdict au_verdict_of(double u, const au_thresholds *thr);
/* The family registry (families.def): one entry per family the calibrator measures. */
typedef enum au_family_kind {
    AU_KIND_PLAIN = 0, /* its own operation is not a CAS */
    AU_KIND_CAS,       /* its own operation is a CAS (ATOMS.CAS, .CAS.64): priced at c = 0 */
    AU_KIND_CAS_LOOP,  /* attempts of a compiler-made CAS loop (ATOMS.CAST.SPIN*), CAS-class too */
    AU_KIND_DSMEM,     /* distributed shared memory (cluster): only c = 0 rows */
    AU_KIND_GENERIC,   /* generic-address atomics (ATOM.E.*) that land in the SM's own shared memory: not
                          counted as jobs, priced by their wavefronts (docs/opcodes.md, "Generic atomics") */
} au_family_kind;
typedef struct au_family_def {
    const char *name;   /* table family */
    const char *opcode; /* its SASS opcode ("ATOMS.CAST.SPIN.64"; the dsmem families': ATOM.E.ADD) */
    au_family_kind kind;
    int wf_per_pass; /* wavefronts the counter reports per serialized pass (CAS class: 2) */
    int cluster;     /* dsmem families: blocks per cluster (0 for the others) */
    int shift;       /* dsmem families: target rank = (own rank + shift) % cluster */
    int row;         /* dsmem families: 1 = every warp's words in one 128-byte row */
    int width;       /* bits of the word it works on (32, 64); 0 where not known (dsmem, a name
                        the registry does not hold) */
} au_family_def;
/* The registry's entries, in families.def's order; *count receives their number. */
const au_family_def *au_families(size_t *count);
/* The registry's entry of a family name, NULL for a name it does not hold. */
const au_family_def *au_family_find(const char *name);
/* A family's kind: the registry's, or for a name it does not hold (a table of a newer calibrator)
 * the table format's naming convention (docs/table-format.md): names that start with "cast_spin"
 * are CAS loops, other names that start with "cas" CAS-class, "dsmem" the cluster families,
 * "generic" generic atomics. */
au_family_kind au_family_kind_of(const char *family);
/* 1 for families whose own operation is CAS-class (AU_KIND_CAS, AU_KIND_CAS_LOOP).  They are
 * priced at c = 0. */
int au_family_is_cas_class(const char *family);
/* 1 for the CAS-loop families (AU_KIND_CAS_LOOP), whose jobs are attempts of a compiler-made
 * loop, each preceded by a shared load. */
int au_family_is_cas_loop(const char *family);
/* 1 for the distributed-shared-memory (cluster) families (names that start with "dsmem"): they
 * hold only c = 0 rows (docs/table-format.md). */
int au_family_is_dsmem(const char *family);
/* One attempt of a CAS loop: the table's S at the family's largest a (an uncontended attempt of a
 * full warp: AU_LOOP_WF_PER_A wavefronts per a, the CAS's two and its load's one) scaled to
 * wf_attempt, the attempt's shared wavefronts, its load's included.  The unit serves every
 * shared wavefront in about a cycle at saturation, whether the attempt's lanes conflict, fail or
 * share a word (calibrate/tools/unit_bound.cu; docs/calibration.md). */
#define AU_LOOP_WF_PER_A 3.0
int au_loop_service(const au_table *t, const char *family, double n, double wf_attempt, double *service_cycles,
                    au_flags *flags);

/* Distributed shared memory (docs/model.md, "DSMEM", with the H100's measurement): xbar cycles of
 * one remote request of 32 lanes on 32 distinct words. */
#define AU_DSMEM_XBAR_PER_REQUEST 9.0
/* With the DSMEM sector counters: a launch whose atomic sectors are at least this share of all its
 * DSMEM sectors sent atomics only; at most 1 - this share, none (docs/model.md, "DSMEM"). */
#define AU_DSMEM_ALL_ATOMIC       0.995
/* The dsmem set's row test (docs/model.md, "DSMEM"): requests of at least AU_DSMEM_ROW_WAVEFRONTS
 * dshared wavefronts each (same-word lanes) whose stalls give an M/D/1 service time of at least
 * AU_DSMEM_ROW_SERVICE cycles share their receiver's rows, unless the row's price would exceed
 * AU_DSMEM_ROW_FIT times the active cycles (set from GH100 measurements: docs/model.md, "DSMEM"). */
#define AU_DSMEM_ROW_WAVEFRONTS   16.0
#define AU_DSMEM_ROW_SERVICE      40.0
#define AU_DSMEM_ROW_FIT          1.1
/* A hot receiver (docs/model.md, "DSMEM"): a launch measured with the dsmem set whose busiest SM
 * made at least this share of its cluster's local wavefronts (the mean block's times the cluster
 * size; a ring of 2 makes half) serves its cluster's jobs: priced at the table's dsmem_hot family
 * of that cluster size. */
#define AU_DSMEM_HOT_SHARE        0.75
/* Table family of a hot receiver of a cluster size: the registry's hot family (shift < 0) of that
 * size the table holds; NULL when it has none. */
const char *au_dsmem_hot_family(const au_table *t, double cluster_size);
/* Table family of a launch's remote requests by its cluster size: of the registry's remote ring
 * families (shift > 0, row 0: dsmem_remote, _c4, _c8, _c16), the one the table holds whose
 * cluster size is nearest (in log2; the first on a tie); NULL when the table has none. */
const char *au_dsmem_remote_family(const au_table *t, double cluster_size);
/* Prices the DSMEM atomics of a launch measured with the cluster set (gpu has AU_C_DSMEM; GPU-wide
 * sums): remote busy = max(k_x * xbar cycles, k_w * dshared wavefronts) per SM, with k_x = S(remote,
 * n, 1) / AU_DSMEM_XBAR_PER_REQUEST and k_w = S(remote, n, 32) / 32; the local unit's busy = res's
 * (the counted ATOMS) plus the generic jobs that sent nothing, at the dsmem_local family; U =
 * max(local, remote) / T, with a range for the local passes the cluster set does not count.
 * With the sector counters (AU_C_DSHARED_SECTORS) only the atomics' share of the DSMEM traffic is
 * priced (flags AU_F_DSMEM_OTHER_TRAFFIC, AU_F_DSMEM_MIXED).
 * res must hold au_model_eval's (or the opcode pricing's) result; a launch without DSMEM
 * counters is left as it is. */
int au_dsmem_apply(const au_table *t, const au_counters *gpu, int sm_count, const au_thresholds *thr, au_busy_mode busy,
                   au_result *res);

/* ---------------------------------------------------------------- per-SM, per-class model */

/* Table family of a SASS opcode, from the registry (families.def): the family whose opcode is
 * the longest prefix of it ending at a '.' or its end: "ATOMS.ADD" -> "add", "ATOMS.POPC.INC.32"
 * -> "popc_inc", "ATOMS.CAS" -> "cas", "ATOMS.CAS.64" -> "cas64", "ATOMS.CAST.SPIN" ->
 * "cast_spin", "ATOMS.CAST.SPIN.64" -> "cast_spin64", MIN/MAX (any type suffix) -> "min"/"max",
 * EXCH -> "exch", AND/OR/XOR -> "bit_and"/"bit_or"/"bit_xor", INC/DEC -> "inc"/"dec".  A generic
 * atomic (ATOM.E.*) maps to the generic family where it lands in shared memory as it is
 * (au_generic_lands_in_shared).  NULL for others. */
const char *au_opcode_family(const char *opcode);
/* 1 for a generic atomic's opcode (ATOM.E.<op>...) whose operation the shared unit serves itself,
 * so that on an address in shared memory the instruction itself lands there: 32-bit ADD, MIN, MAX,
 * AND, OR, XOR, and INC, DEC, EXCH, CAS of any width.  0 for the forms the compiler pairs with a CAS
 * loop on shared memory (ATOMS.CAST.SPIN*): float and packed-half adds, 64-bit add, min, max, and,
 * or, xor; there the generic form serves other memory only (docs/opcodes.md, "Generic atomics"). */
int au_generic_lands_in_shared(const char *opcode);

/* Jobs of one instruction class (one family) on one SM. */
typedef struct au_class_jobs {
    const char *family; /* table family; one missing from the table is priced as "add" */
    double jobs;        /* executed warp-instructions */
    double wavefronts;  /* their shared wavefronts */
    /* CAS loops (au_family_is_cas_loop): the wavefronts of the loads before their attempts, or
     * < 0 when unknown (then priced by the table at a from the atomic wavefronts alone) */
    double load_wavefronts;
} au_class_jobs;

/* One SM (or the mean SM) with jobs of several classes:
 *   J_mix = non-CAS jobs + 32-bit CAS jobs (family "cas"), c = N * J_cas32 / J_mix;
 *   with non-CAS classes: B = J_mix * sum_k (J_k / J_noncas) * S_k(N, a_k, c) over the non-CAS
 *   classes (the table's c column holds the 32-bit CAS jobs' share of the queue), plus
 *   J_k * S_k(N, a_k, 0) for each other CAS-class family (cas64, cast_spin, cast_spin64: no c
 *   column was measured with them, and the c column is close to linear in c);
 *   with CAS classes only: B = sum_k J_k * S_k(N, a_k, 0);
 *   a_k = wavefronts_k / J_k, halved for CAS-class families (two wavefronts per pass);
 *   CAS-loop classes with known load wavefronts cost au_loop_service per job instead, at
 *   (wavefronts_k + load_wavefronts_k) / J_k wavefronts per attempt.
 * busy_share[k] (may be NULL) receives class k's share of B, apportioned by J_k * S_k(N, a_k, 0).
 * queue_len and active_cycles are this SM's (or estimates, flagged by the caller). */
int au_model_eval_classes(const au_table *t, const au_class_jobs *cls, size_t ncls, double queue_len,
                          double active_cycles, const au_thresholds *thr, au_busy_mode busy, au_result *res,
                          double *busy_share);

#ifdef __cplusplus
}
#endif
#endif
