/*
 * cal.h - atomutil-calibrate's internal interfaces: kernel family descriptors, the command line,
 * the sweep plan, sample statistics, table assembly and merging (pure C, tested without a GPU),
 * and the GPU runners (runner.c for the ATOMS families, dsmem.c for the cluster families; CUDA
 * runtime).  Nothing here exits: functions return AU_OK or a negative status and leave the detail
 * in au_last_error().
 */
#ifndef ATOMUTIL_CAL_H
#define ATOMUTIL_CAL_H

#include "atomutil/model.h"
#include "atomutil/util.h"
#include "kernels/launch.h"

#include <stddef.h>

/* Statuses of this tool beyond au_status. */
#define AU_CAL_E_NODEV (-100) /* no usable CUDA device: exit status 3 */
#define AU_CAL_E_GPU   (-101) /* a CUDA call or a launch failed */

/* The runners' CUDA_CHECK (kernels/cuda_check.h, included after this header) prints nothing: it
 * stores AU_CAL_E_GPU in the caller's rc and the failed call with CUDA's message in au_last_error(). */
#define CUDA_CHECK_REPORT(what, msg) (rc = au_set_error(AU_CAL_E_GPU, "%s: %s", what, msg))

/* Exit statuses of atomutil-calibrate. */
enum { AU_CAL_EXIT_OK = 0, AU_CAL_EXIT_FAIL = 1, AU_CAL_EXIT_USAGE = 2, AU_CAL_EXIT_NODEV = 3 };

/* ------------------------------------------------------------------ families */

enum {
    AU_CAL_CGRID_AUTO = 0,
    AU_CAL_CGRID_FULL,
    AU_CAL_CGRID_SPARSE,
    AU_CAL_CGRID_ENDS,
    AU_CAL_CGRID_ZERO /* c = 0 only: the dsmem families */
};

/* One kernel family: the descriptor of its kernel (see model/include/atomutil/families.def for the fields). */
typedef struct au_cal_family {
    const char *name;
    const char *sass;
    int width;
    int wf_per_way; /* counter wavefronts per serialized pass: 2 for the CAS class */
    int pattern;    /* AU_CAL_PAT_BANK or AU_CAL_PAT_DISTINCT */
    int max_a;
    int cgrid; /* AU_CAL_CGRID_FULL / SPARSE / ENDS / ZERO */
    const char *what;
    int cluster; /* dsmem families: blocks per cluster; 0 for the ATOMS families */
    int shift;   /* dsmem families: target rank = (own rank + shift) % cluster */
    int row;     /* dsmem families: 1 = every warp's words in one 128-byte row, 0 = a row each */
} au_cal_family;
/* Active lanes of a family's job for a serialized passes with its own pattern. */
int au_cal_family_lanes(const au_cal_family *f, int a);

extern const au_cal_family au_cal_families[];
extern const int au_cal_nfamilies;
/* The ATOMS families (harness.cuh, runner.c) are au_cal_families[0 .. au_cal_natoms); the dsmem
 * families (dsmem.cu, dsmem.c) follow them. */
extern const int au_cal_natoms;
/* Bit mask of the dsmem families over au_cal_families. */
unsigned au_cal_dsmem_mask(void);
/* 1 for a dsmem family (measured by dsmem.c, c = 0 only). */
int au_cal_is_dsmem(const au_cal_family *f);

/* Index of a family by name, -1 if unknown. */
int au_cal_family_index(const char *name);
/* "add,cas64" or "all" -> bit mask over au_cal_families. */
int au_cal_parse_families(const char *list, unsigned *mask);
/* Same; *named gets the families named one by one (not through "all"). */
int au_cal_parse_families_named(const char *list, unsigned *mask, unsigned *named);

/* ------------------------------------------------------------------ command line */

typedef enum au_cal_mode {
    AU_CAL_MODE_TABLE = 0, /* measure and write a table */
    AU_CAL_MODE_POINTS,    /* measure single points, print them (checks under ncu) */
    AU_CAL_MODE_COMPARE,   /* repeatability of two tables */
    AU_CAL_MODE_THIN,      /* interpolation error of the sparse c grid */
    AU_CAL_MODE_LIST,      /* list the families */
    AU_CAL_MODE_LATENCY,   /* measure the load latencies only (print them, or into --merge's table) */
    AU_CAL_MODE_HELP,
    AU_CAL_MODE_VERSION,
} au_cal_mode;

#define AU_CAL_MAX_POINTS 512

typedef struct au_cal_pspec {
    int family, n, a, c;
} au_cal_pspec;

typedef struct au_cal_config {
    au_cal_mode mode;
    const char *output; /* NULL: atomutil-<gpu-slug>[-burst][-quick].csv */
    int device;
    int burst;         /* method: 0 steady, 1 burst */
    unsigned families; /* mask over au_cal_families */
    unsigned named;    /* families named one by one in --families (not through "all") */
    int add_implied;   /* add was not asked for but is measured: a table needs it (no --merge) */
    int quick;
    int reps;       /* 0: default */
    int jobs;       /* K; 0: default */
    int dsmem_jobs; /* K of the dsmem families: --jobs when given, else their default */
    int cgrid;      /* AU_CAL_CGRID_* */
    int pattern;    /* --point only: AU_CAL_PAT_* for every family (a = lanes); -1 auto */
    au_cal_pspec points[AU_CAL_MAX_POINTS];
    int npoints;
    const char *file_a, *file_b; /* --compare A B, --check-thinning A */
    const char *merge;           /* --merge EXISTING.csv */
} au_cal_config;

#define AU_CAL_DEFAULT_JOBS       2048
#define AU_CAL_DEFAULT_DSMEM_JOBS 1024
#define AU_CAL_DEFAULT_REPS       5
#define AU_CAL_QUICK_REPS         3

/* Parses argv into cfg.  Returns AU_OK, or AU_E_INVAL with a one-line message in err (the caller
 * prints it with the usage hint and exits 2). */
int au_cal_parse_args(int argc, char **argv, au_cal_config *cfg, char *err, size_t errlen);
const char *au_cal_usage(void);
/* Parses "family:n:a:c" (the table's a, not lanes). */
int au_cal_parse_point(const char *s, au_cal_pspec *out);

/* ------------------------------------------------------------------ sweep plan */

/* One grid point to measure. */
typedef struct au_cal_point {
    int family;
    int n, a, c;
    int pattern;             /* lane pattern of the family's warps (CAS warps: same-bank) */
    int lanes_op, lanes_cas; /* active lanes of family warps and CAS warps for a passes */
    double est_cycles;       /* predicted length of one pass, for scheduling and progress */
} au_cal_point;

typedef struct au_cal_plan_opts {
    int max_warps;     /* n runs 1..max_warps (from the device; the dsmem families: to 32) */
    unsigned families; /* mask */
    int quick;         /* reduced n, a, c grid */
    int cgrid;         /* AU_CAL_CGRID_AUTO: each family's default (the dsmem families: always c = 0) */
    int jobs;          /* K, for the estimates */
    int dsmem_jobs;    /* K of the dsmem families, for their estimates (0: jobs) */
} au_cal_plan_opts;

/* The dsmem families' grid: n 1..32 (quick: 1, 2, 4, 8, 16, 32), a 1, 2, 4, 8, 16, 32, c 0. */
#define AU_CAL_DSMEM_MAX_N 32

typedef struct au_cal_plan {
    au_cal_point *pts; /* grouped by family in au_cal_families order, then n, a, c */
    size_t npts;
} au_cal_plan;

int au_cal_plan_build(const au_cal_plan_opts *o, au_cal_plan *p);
void au_cal_plan_free(au_cal_plan *p);
/* Points of p before the first dsmem point (plans are grouped in au_cal_families order, so the
 * ATOMS points come first and the dsmem points after them). */
size_t au_cal_plan_atoms(const au_cal_plan *p);
/* c values measured for one (n, a) pair; out holds n + 1 ints; returns the count. */
int au_cal_c_values(int n, int cgrid, int quick, int *out);
/* The point for (family, n, a, c): lanes from a with the family's pattern (pattern < 0), or with
 * the given pattern and a = lanes (checks); AU_E_INVAL if a is not reachable. */
int au_cal_make_point(int family, int n, int a, int c, int jobs, int pattern, au_cal_point *out);
/* Counter wavefronts one launch of --point p should show (two passes of n warps x jobs), or -1
 * when p uses another pattern than its family's (then it is not predicted). */
long au_cal_point_wavefronts(const au_cal_point *p, int jobs);
/* Longest-processing-time schedule of nitems items of cost[] onto nsm SM work lists: order[]
 * gets the item indices grouped by list, first[nsm + 1] the list bounds.  Returns the largest
 * list's total cost, or -1 when out of memory. */
double au_cal_schedule(const double *cost, size_t nitems, int nsm, int *order, int *first);

/* ------------------------------------------------------------------ results */

/* What the device reported, in the tool's own terms (pure data, filled by runner.c). */
typedef struct au_cal_devinfo {
    char name[AU_NAME_MAX];
    int cc_major, cc_minor;
    int sm_count;
    int max_warps;       /* max resident warps per SM */
    int warps_per_block; /* max_warps / 2 */
    char cuda_version[32];
    char driver_version[32];
} au_cal_devinfo;

/* Rejection reasons of au_cal_item_service. */
enum {
    AU_CAL_REJ_NONE = 0,
    AU_CAL_REJ_NOT_RUN,   /* warps reported != n: the item did not run on both blocks */
    AU_CAL_REJ_SPLIT,     /* the two blocks reported different %smid */
    AU_CAL_REJ_SKEW,      /* the two blocks of a pass started too far apart */
    AU_CAL_REJ_CLOCK,     /* end <= start (or the runtime-false guard fired) */
    AU_CAL_REJ_SHARED_SM, /* dsmem: two blocks of one launch reported the same %smid */
};
const char *au_cal_reject_name(int reason);
/* Largest start difference of the two blocks of a pass.  Released at the same go, the blocks'
 * first jobs still start 100-430 cycles apart on an H200 (the older block's warps are issued
 * first); meanwhile the first block's 32 warps saturate the unit, so T loses nothing.  The bound
 * only catches a block that missed go (thousands of cycles). */
#define AU_CAL_SKEW_MAX 1000 /* cycles */

/* S = T / (n k) of one timed pass from its two slot records; AU_CAL_REJ_* */
int au_cal_item_service(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block, double *service);
/* Median, min, max, MAD of v[0..n) (v is sorted in place). */
int au_cal_stats(double *v, int n, au_sample *out);
/* "NVIDIA H200" -> "nvidia-h200" (lower case, runs of other characters -> '-'). */
void au_cal_slug(const char *name, char *out, size_t size);
/* Fills table metadata from the device and the run. */
/* One dependent global load of a lone thread, in SM cycles (latency.c): from L2 and from DRAM;
 * and MATCH.ANY of 32 distinct lane values, SM cycles per value (the SM's throughput with 32 warps,
 * one warp's latency); 0 where not measured. */
typedef struct au_cal_latency {
    double l2_hit_cycles, dram_cycles;
    long l2_bytes, dram_bytes; /* the buffers chased */
    double match_cycles_per_value, match_latency_per_value;
} au_cal_latency;
/* Measures lat on the current device (au_cal_gpu_open selected it); a figure it cannot measure
 * (no L2 reported, too little free memory for the DRAM buffer, no MATCH before sm_70) stays 0
 * with the reason in why. */
int au_cal_load_latency(int device, au_cal_latency *lat, char *why, size_t whylen);
/* Sets m's load latencies and MATCH cost to lat's measured ones (lat NULL or 0: m's stay). */
void au_cal_set_latency(au_table_meta *m, const au_cal_latency *lat);
void au_cal_fill_meta(au_table_meta *m, const au_cal_devinfo *d, int burst, int jobs, int reps, double sm_clock_mhz,
                      const char *date, const char *note);
/* Builds, finalizes and saves the table of a plan's samples (samples[point * reps + rep]). */
int au_cal_write_table(const au_table_meta *meta, const au_cal_plan *p, const double *samples, int reps,
                       const char *path, size_t *rows_out);

/* One timed pass of a dsmem launch: cycles[b] = end - start of block b (b < blocks), smid[b] its
 * %smid.  S = median over blocks of cycles[b] / (n k), cycles per job per SM; hot > 1 (a hot
 * family's cluster size): median over clusters of their longest block's cycles / (hot n k), the
 * receiver's cycles per job of its cluster.  Returns
 * AU_CAL_REJ_SHARED_SM when two blocks share an SM, AU_CAL_REJ_NOT_RUN when a block reported no
 * SM (smid < 0: the kernel was built without sm_90 code), AU_CAL_REJ_CLOCK for a cycle count
 * <= 0; AU_CAL_REJ_NONE with *service set otherwise. */
int au_cal_dsmem_service(const long long *cycles, const int *smid, int blocks, int n, int k, int hot, double *service);

/* --merge (results.c): whether rows measured on device d with the given method may go into
 * existing (same GPU name, compute capability, method and warps per SM); AU_E_INVAL with the
 * reason otherwise. */
int au_cal_merge_check(const au_table *existing, const au_cal_devinfo *d, int burst);
/* Writes existing's rows, except those of the families p measured, plus p's rows (statistics of
 * samples as au_cal_write_table), under existing's metadata whose note gets `note_add` appended
 * ("; " between; the old note is cut where both do not fit).  *rows_out: rows written. */
int au_cal_merge_table(const au_table *existing, const char *note_add, const au_cal_latency *lat, const au_cal_plan *p,
                       const double *samples, int reps, const char *path, size_t *rows_out);

/* --compare / --check-thinning (compare.c): print to out; return AU_OK, or 1 when the figure is
 * over its limit (2 % median absolute relative difference), or < 0 on error. */
int au_cal_compare(const char *path_a, const char *path_b, FILE *out);
int au_cal_check_thinning(const char *path_full, FILE *out);

/* ------------------------------------------------------------------ GPU runner (runner.c) */

typedef struct au_cal_gpu au_cal_gpu;

typedef void (*au_cal_progress_fn)(double fraction, const char *family, void *user);

int au_cal_gpu_open(int device, au_cal_gpu **out, au_cal_devinfo *info);
void au_cal_gpu_close(au_cal_gpu *g);
/* Measures every point of p reps times (k jobs per warp) into samples[point * reps + rep].
 * Points run on all SMs at once; rejected runs are redone. */
int au_cal_gpu_measure(au_cal_gpu *g, const au_cal_plan *p, int reps, int k, double *samples,
                       au_cal_progress_fn progress, void *user);
/* One launch per point, on one SM only (for counter checks): samples[i] of point i, skew[i] the
 * start difference of its two blocks (0 for one block), cycles. */
int au_cal_gpu_measure_single(au_cal_gpu *g, const au_cal_point *pts, size_t n, int k, double *samples, int *skew);
/* SM clock seen so far (clock64 cycles per %globaltimer microsecond), 0 if unknown; GPU seconds. */
double au_cal_gpu_clock_mhz(const au_cal_gpu *g);
double au_cal_gpu_seconds(const au_cal_gpu *g);
/* Runs redone so far, by reason (array of 5, AU_CAL_REJ_*), and the largest block start skew
 * seen in a rejected run (cycles). */
const long *au_cal_gpu_redone(const au_cal_gpu *g);
int au_cal_gpu_worst_skew(const au_cal_gpu *g);
/* Start difference of the two blocks of a two-block pass (0 for one block), cycles. */
long long au_cal_skew(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block);

/* ------------------------------------------------------------------ dsmem runner (dsmem.c) */

/* What the dsmem runner found and did. */
typedef struct au_cal_dsmem_info {
    int supported;         /* device has thread block clusters (compute capability >= 9.0) */
    char why[400];         /* when not: the reason, for a note or an error */
    int clusters[32];      /* per family index: clusters launched at once (0: that size cannot run) */
    int smem_bytes;        /* dynamic shared memory per block that keeps it alone on its SM */
    double gpu_seconds;    /* launch-to-completion time of the measuring launches */
    long launches, redone; /* launches, and launches redone (blocks on a shared SM, bad clocks) */
} au_cal_dsmem_info;

/* Checks cluster support of the current device (au_cal_gpu_open selected it) for the dsmem
 * families in `families`: clusters[f] = clusters of family f's size that fit at once with one
 * block per SM (occupancy API).  AU_OK also when unsupported (info->supported 0, info->why). */
int au_cal_dsmem_probe(int device, unsigned families, au_cal_dsmem_info *info);
/* Measures the dsmem points p->pts[0 .. p->npts) (all of dsmem families that probe found
 * launchable): one launch per point, a warm-up pass then `reps` timed passes, samples[i * reps +
 * r] = S of pass r.  Progress as au_cal_gpu_measure. */
int au_cal_dsmem_measure(au_cal_dsmem_info *info, const au_cal_plan *p, int reps, int k, double *samples,
                         au_cal_progress_fn progress, void *user);

#endif
