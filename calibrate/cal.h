/*
 * cal.h - atomutil-calibrate's internal interfaces: kernel family descriptors, the command line,
 * the sweep plan, sample statistics and table assembly (pure C, tested without a GPU), and the
 * GPU runner (runner.c, CUDA runtime).  Nothing here exits: functions return AU_OK or a negative
 * status and leave the detail in au_last_error().
 */
#ifndef ATOMUTIL_CAL_H
#define ATOMUTIL_CAL_H

#include "atomutil/model.h"
#include "atomutil/util.h"
#include "kernels/launch.h"

#include <stddef.h>

/* Statuses of this tool beyond au_status. */
#define AU_CAL_E_NODEV (-100) /* no usable CUDA device: exit status 3 */
#define AU_CAL_E_GPU (-101)   /* a CUDA call or a launch failed */

/* Exit statuses of atomutil-calibrate. */
enum { AU_CAL_EXIT_OK = 0, AU_CAL_EXIT_FAIL = 1, AU_CAL_EXIT_USAGE = 2, AU_CAL_EXIT_NODEV = 3 };

/* ------------------------------------------------------------------ families */

enum { AU_CAL_CGRID_AUTO = 0, AU_CAL_CGRID_FULL, AU_CAL_CGRID_SPARSE, AU_CAL_CGRID_ENDS };

/* One kernel family: the descriptor of its kernel (see families.def for the fields). */
typedef struct au_cal_family {
    const char *name;
    const char *sass;
    int width;
    int wf_per_way; /* counter wavefronts per serialized pass: 2 for the CAS class */
    int pattern;    /* AU_CAL_PAT_BANK or AU_CAL_PAT_DISTINCT */
    int max_a;
    int cgrid;      /* AU_CAL_CGRID_FULL / SPARSE / ENDS */
    const char *what;
} au_cal_family;
/* Active lanes of a family's job for a serialized passes with its own pattern. */
int au_cal_family_lanes(const au_cal_family *f, int a);

extern const au_cal_family au_cal_families[];
extern const int au_cal_nfamilies;

/* Index of a family by name, -1 if unknown. */
int au_cal_family_index(const char *name);
/* "add,cas64" or "all" -> bit mask over au_cal_families. */
int au_cal_parse_families(const char *list, unsigned *mask);

/* ------------------------------------------------------------------ command line */

typedef enum au_cal_mode {
    AU_CAL_MODE_TABLE = 0, /* measure and write a table */
    AU_CAL_MODE_POINTS,    /* measure single points, print them (checks under ncu) */
    AU_CAL_MODE_COMPARE,   /* repeatability of two tables */
    AU_CAL_MODE_THIN,      /* interpolation error of the sparse c grid */
    AU_CAL_MODE_LIST,      /* list the families */
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
    int burst;          /* method: 0 steady, 1 burst */
    unsigned families;  /* mask over au_cal_families */
    int quick;
    int reps;           /* 0: default */
    int jobs;           /* K; 0: default */
    int cgrid;          /* AU_CAL_CGRID_* */
    int pattern;        /* --point only: AU_CAL_PAT_* for every family (a = lanes); -1 auto */
    au_cal_pspec points[AU_CAL_MAX_POINTS];
    int npoints;
    const char *file_a, *file_b; /* --compare A B, --check-thinning A */
} au_cal_config;

#define AU_CAL_DEFAULT_JOBS 2048
#define AU_CAL_DEFAULT_REPS 5
#define AU_CAL_QUICK_REPS 3

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
    int max_warps;      /* n runs 1..max_warps (from the device) */
    unsigned families;  /* mask */
    int quick;          /* reduced n, a, c grid */
    int cgrid;          /* AU_CAL_CGRID_AUTO: each family's default */
    int jobs;           /* K, for the estimates */
} au_cal_plan_opts;

typedef struct au_cal_plan {
    au_cal_point *pts; /* grouped by family in au_cal_families order, then n, a, c */
    size_t npts;
} au_cal_plan;

int au_cal_plan_build(const au_cal_plan_opts *o, au_cal_plan *p);
void au_cal_plan_free(au_cal_plan *p);
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
    AU_CAL_REJ_NOT_RUN,  /* warps reported != n: the item did not run on both blocks */
    AU_CAL_REJ_SPLIT,    /* the two blocks reported different %smid */
    AU_CAL_REJ_SKEW,     /* the two blocks of a pass started too far apart */
    AU_CAL_REJ_CLOCK,    /* end <= start (or the runtime-false guard fired) */
};
const char *au_cal_reject_name(int reason);
/* Largest start difference of the two blocks of a pass.  Released at the same go, the blocks'
 * first jobs still start 100-430 cycles apart on an H200 (the older block's warps are issued
 * first); meanwhile the first block's 32 warps saturate the unit, so T loses nothing.  The bound
 * only catches a block that missed go (thousands of cycles). */
#define AU_CAL_SKEW_MAX 1000 /* cycles */

/* S = T / (n k) of one timed pass from its two slot records; AU_CAL_REJ_* */
int au_cal_item_service(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block,
                        double *service);
/* Median, min, max, MAD of v[0..n) (v is sorted in place). */
int au_cal_stats(double *v, int n, au_sample *out);
/* "NVIDIA H200" -> "nvidia-h200" (lower case, runs of other characters -> '-'). */
void au_cal_slug(const char *name, char *out, size_t size);
/* Fills table metadata from the device and the run. */
void au_cal_fill_meta(au_table_meta *m, const au_cal_devinfo *d, int burst, int jobs, int reps,
                      double sm_clock_mhz, const char *date, const char *note);
/* Builds, finalizes and saves the table of a plan's samples (samples[point * reps + rep]). */
int au_cal_write_table(const au_table_meta *meta, const au_cal_plan *p, const double *samples,
                       int reps, const char *path, size_t *rows_out);

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
int au_cal_gpu_measure_single(au_cal_gpu *g, const au_cal_point *pts, size_t n, int k,
                              double *samples, int *skew);
/* SM clock seen so far (clock64 cycles per %globaltimer microsecond), 0 if unknown; GPU seconds. */
double au_cal_gpu_clock_mhz(const au_cal_gpu *g);
double au_cal_gpu_seconds(const au_cal_gpu *g);
/* Runs redone so far, by reason (array of 5, AU_CAL_REJ_*), and the largest block start skew
 * seen in a rejected run (cycles). */
const long *au_cal_gpu_redone(const au_cal_gpu *g);
int au_cal_gpu_worst_skew(const au_cal_gpu *g);
/* Start difference of the two blocks of a two-block pass (0 for one block), cycles. */
long long au_cal_skew(const au_cal_slot slot[2], const au_cal_item *it, int warps_per_block);

#endif
