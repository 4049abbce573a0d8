/*
 * atomutil/table.h - the service-time table S(family, n, a, c) (format v1, docs/table-format.md):
 * loading, checking, writing, lookup and interpolation, the choice of a table for a GPU, and the
 * flags of a result (part of atomutil/model.h).
 */
#ifndef ATOMUTIL_TABLE_H
#define ATOMUTIL_TABLE_H

#include "atomutil/errors.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- table */

#define AU_NAME_MAX   128
#define AU_FAMILY_MAX 32
#define AU_A_MAX      32 /* serialized wavefronts per warp-instruction: 1..32 */

/* Metadata carried by a table (the '# key: value' lines of format v1). Strings are NUL-terminated;
 * numbers are 0 / empty when a key is absent (only the required keys are always present). */
typedef struct au_table_meta {
    char gpu_name[AU_NAME_MAX]; /* required, e.g. "NVIDIA H200" */
    int cc_major, cc_minor;     /* required: compute capability */
    int sm_count;               /* required */
    int max_warps_per_sm;       /* required: upper bound of n */
    char method[16];            /* required: "steady" or "burst" */
    double sm_clock_mhz;        /* SM clock seen during calibration */
    char cuda_version[32];      /* CUDA runtime/toolkit version */
    char driver_version[32];    /* driver version */
    int jobs_per_warp;          /* K of the steady method (1 for burst) */
    int repetitions;            /* repetitions per grid point */
    char date[32];              /* ISO 8601 date of the measurement */
    char tool_version[32];      /* atomutil version that measured it */
    char status[16];            /* "measured" or "provisional" */
    char note[256];             /* free text, one line */
    /* one dependent global load of a lone thread, in SM cycles (atomutil-calibrate's pointer
     * chase): from L2 and from DRAM; 0 where not measured.  The advisor's time model prices a CAS
     * loop's rest per entry with them (docs/advisor.md, "CAS loops with their entries"). */
    double l2_hit_latency_cycles;
    double dram_latency_cycles;
    /* __match_any_sync (MATCH.ANY) with 32 distinct lane values (atomutil-calibrate): SM cycles
     * per distinct value of a warp-instruction, the SM's throughput with 32 warps and one warp's
     * latency; 0 where not measured.  The advisor prices the aggregate cure's own work with them
     * (docs/advisor.md, "Warp aggregation's own work"). */
    double match_any_cycles_per_value;
    double match_any_latency_cycles_per_value;
} au_table_meta;

/* One measured grid point: median service time per job and its spread, in SM cycles.  A table
 * holds finite values, 0 < min <= service <= max <= AU_SERVICE_CYCLES_MAX and mad <= that bound:
 * the shipped tables' largest is 255 cycles (a 32-way CAS job), and beyond a million cycles per
 * job a value is no measurement (near DBL_MAX, it made U a NaN). */
#define AU_SERVICE_CYCLES_MAX 1e6
typedef struct au_sample {
    double service_cycles; /* median over repetitions */
    double min_cycles;
    double max_cycles;
    double mad_cycles; /* median absolute deviation */
} au_sample;

typedef struct au_table au_table;

/* Loads and validates a format-v1 table.  On error returns < 0, *out stays NULL and
 * au_last_error() reads "PATH:LINE: what is wrong". */
int au_table_load(const char *path, au_table **out);
/* Reads and validates only a table's metadata (the lines before the header, checked as
 * au_table_load checks them); the rows are not read.  Errors as au_table_load. */
int au_table_load_meta(const char *path, au_table_meta *out);
/* Same as au_table_load from a memory buffer; name is used in messages. */
int au_table_parse(const char *name, const char *buf, size_t len, au_table **out);
/* 1 when line (len bytes, without its line end) begins as a table's first line does, whatever the
 * format version: how a table is told from the other CSV files atomutil reads (an export given
 * where a table goes, or the reverse), without reading it as one. */
int au_table_magic_line(const char *line, size_t len);
/* Writes the table in format v1 (metadata comments, header, rows sorted by family, n, a, c). */
int au_table_write(const au_table *t, FILE *f);
int au_table_save(const au_table *t, const char *path);
void au_table_free(au_table *t);

/* Building a table (calibration): new, add points, then finalize, which sorts and validates the
 * grid exactly as au_table_load does. */
int au_table_new(const au_table_meta *meta, au_table **out);
int au_table_add(au_table *t, const char *family, int n, int a, int c, const au_sample *s);
int au_table_finalize(au_table *t);

const au_table_meta *au_table_get_meta(const au_table *t);
/* Path the table was loaded from ("" when built in memory). */
const char *au_table_path(const au_table *t);
size_t au_table_family_count(const au_table *t);
const char *au_table_family_name(const au_table *t, size_t i);
int au_table_has_family(const au_table *t, const char *family);
/* Largest n of a family's grid (0 if the family is missing). */
int au_table_n_max(const au_table *t, const char *family);
/* Largest a of a family's grid (0 if the family is missing). */
int au_table_a_max(const au_table *t, const char *family);
/* Exact grid point, AU_E_NOTFOUND when (n, a, c) is not a measured point. */
int au_table_lookup(const au_table *t, const char *family, int n, int a, int c, au_sample *out);

/* Flags attached to interpolated values and model results: AU_F_<id> = 1 << bit (64 bits: au_flags),
 * one line each in flags.def (name and meaning there; docs/model.md's "Flags" table lists the same). */
typedef unsigned long long au_flags;
enum {
#define AU_FLAG(id, bit, name, meaning) AU_F_##id = 1ull << (bit),
#include "atomutil/flags.def"
#undef AU_FLAG
};
/* The flags of a launch whose counters give no U (missing or not right): verdict unknown, and no
 * model figure is reported. */
#define AU_F_UNUSABLE      (AU_F_MISSING | AU_F_INCONSISTENT | AU_F_IMPLAUSIBLE | AU_F_WRONG_UNIT)
/* The bounds of those checks: an SM issues at most four warp-instructions per cycle (one per
 * SMSP); U at the saturated service time reaches 108 % on recorded launches (model error,
 * docs/validation.md), so 150 % is beyond what the hardware can do. */
#define AU_ISSUE_PER_CYCLE 4.0
#define AU_U_IMPLAUSIBLE   1.5
/* The flags that come with a range of U (util_lo..util_hi). */
#define AU_F_RANGE                                                                                      \
    (AU_F_LOOP_LOADS_ESTIMATED | AU_F_DSMEM_LOCAL_ESTIMATED | AU_F_DSMEM_ROW_RANGE | AU_F_DSMEM_MIXED | \
     AU_F_GENERIC_SPACE | AU_F_UNPRICED_WAVEFRONTS | AU_F_DSMEM_HOT_UNCALIBRATED)
/* Writes the names of the set flags, comma separated ("clamp_n_high,queue_estimated"), or "" when
 * none; returns buf. */
char *au_flags_string(au_flags flags, char *buf, size_t size);
/* The name and the meaning (flags.def, docs' Markdown backquotes left out) of flag bit `bit`; NULL
 * beyond the last flag. */
const char *au_flag_name(unsigned bit);
const char *au_flag_meaning(unsigned bit);

/* S(n, a, c) for real-valued arguments: c of the n queued jobs are CAS (so c/n is the CAS share).
 * Linear interpolation along c (at the CAS share c/n of each grid n) and along a, and along n of
 * the queue's total time T = n * S, then S = T / n, as in the source paper.  Exact at grid points,
 * continuous inside the grid; outside it the arguments are clamped and *flags gets AU_F_CLAMP_*.
 * flags may be NULL. */
int au_table_interp(const au_table *t, const char *family, double n, double a, double c, double *service_cycles,
                    au_flags *flags);

/* Table selection: scans DIR for *.csv tables and picks one for a GPU.  Rule (docs/table-format.md):
 * 1. a table whose gpu_name equals gpu_name (case-insensitive) and whose compute capability is
 *    cc_major.cc_minor; 2. else a table of the same compute capability (flag AU_F_TABLE_OTHER_GPU);
 * among several candidates of one rule, the file name that sorts first.  gpu_name may be NULL or
 * "" (unknown).  Only the metadata of each file is read (au_table_load_meta): files whose
 * metadata fail to read are skipped and counted in *skipped (may be NULL); a picked file's rows
 * are checked when it is loaded.
 * On success *path_out is malloc'ed (caller frees); AU_E_NOTFOUND when no table fits. */
int au_table_find(const char *dir, const char *gpu_name, int cc_major, int cc_minor, char **path_out, unsigned *flags,
                  int *skipped);

#ifdef __cplusplus
}
#endif
#endif
