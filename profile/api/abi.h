/*
 * abi.h (installed as atomutil/abi.h) - the stable C ABI of libatomutil.so, for other languages
 * (the Python package `atomutil` loads it with ctypes; docs/python.md).  Only plain C types and
 * JSON text cross it: no structure layout.  Every function that can fail returns AU_ABI_OK (0) or
 * a negative status (the values of atomutil/errors.h) and, where given an error slot, a malloc'ed
 * one-line message there; strings it returns are freed with au_abi_free.  Nothing here exits or
 * writes to stdout or stderr.
 */
#ifndef ATOMUTIL_ABI_H
#define ATOMUTIL_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised on every change that breaks a caller of an earlier version. */
#define AU_ABI_VERSION 1

enum {
    AU_ABI_OK = 0,
    AU_ABI_E_IO = -1,       /* a file cannot be read */
    AU_ABI_E_PARSE = -2,    /* malformed input: the message names file and line */
    AU_ABI_E_NOMEM = -3,    /* out of memory */
    AU_ABI_E_INVAL = -4,    /* invalid argument */
    AU_ABI_E_NOTFOUND = -5, /* no table fits, or the table lacks the family */
};

/* The ABI number (AU_ABI_VERSION) and atomutil's version ("0.1.0"). */
int au_abi_version(void);
const char *au_abi_atomutil_version(void);

/* A loaded service-time table (opaque). */
typedef struct au_abi_table au_abi_table;

/* Loads the table at path. */
int au_abi_table_load(const char *path, au_abi_table **out, char **error);
/* Finds and loads the table of a GPU as atomutil-profile finds it (docs/table-format.md):
 * $ATOMUTIL_TABLES_DIR, the tables installed beside this library (<libdir>/../../share/atomutil/
 * tables), then atomutil-profile's own search path.  gpu_name may be NULL or "". */
int au_abi_table_find(const char *gpu_name, int cc_major, int cc_minor, au_abi_table **out, char **error);
/* The table's facts as a JSON object: path, gpu_name, compute_capability, sm_count, method,
 * status, families, l2_hit_latency_cycles, dram_latency_cycles, match_any_cycles_per_value and
 * match_any_latency_cycles_per_value (null where not measured),
 * other_gpu (found by compute capability only). */
int au_abi_table_info(const au_abi_table *t, char **json, char **error);
void au_abi_table_free(au_abi_table *t);

/* The metrics atomutil reads, as a JSON array of objects: name, required, sets (of "standard",
 * "cluster", "generic", "dsmem"), ncu (true for those `atomutil-profile --print-ncu-metrics` lists,
 * in its order), unit, meaning. */
int au_abi_metrics(char **json, char **error);

/* How a launch is priced: family prices the non-CAS jobs where the kernel's code is unknown (NULL:
 * "add"); busy is "saturated" (NULL) or "queue"; bound and significant are the verdicts'
 * thresholds as fractions (0: the defaults, 0.80 and 0.40). */

/* One launch's counters, names[i] = values[i] for i < n, by Nsight Compute's metric names in their
 * base units (inst, cycle, warp, wavefront; ns for gpu__time_duration.sum); names atomutil does not
 * read are ignored.  device (the GPU's name; NULL: unknown), cc_major.cc_minor (0.0: unknown) and
 * kernel (NULL: "") describe the launch.  Read as an export with these rows would be (one reader),
 * evaluated once.  *json: {"abi": N, "report": <atomutil-profile --json's document>, "why": [...]},
 * its one launch evaluated with table t, why[0] the reason it has no U ("" where it has one). */
int au_abi_evaluate(const au_abi_table *t, const char *const *names, const double *values, size_t n, const char *device,
                    int cc_major, int cc_minor, const char *kernel, const char *family, const char *busy, double bound,
                    double significant, char **json, char **error);

/* au_abi_evaluate with the kernel's code: opcodes[0..ncode) its instructions' SASS opcodes
 * ("ATOMS.POPC.INC.32"; others than shared and generic atomics are ignored), executed[i] (NULL:
 * not known) the warp-level executions of instruction i in the launch (an Nsight Compute report's
 * per-instruction inst_executed).  The jobs are priced by their opcodes as atomutil-profile
 * --opcodes prices them, split among the opcode classes by those executions (by instruction count
 * without them). */
int au_abi_evaluate_code(const au_abi_table *t, const char *const *names, const double *values, size_t n,
                         const char *device, int cc_major, int cc_minor, const char *kernel, const char *const *opcodes,
                         const double *executed, size_t ncode, const char *family, const char *busy, double bound,
                         double significant, char **json, char **error);
/* A counters file of a live run or an Nsight Compute CSV export read once and every launch evaluated
 * once, as `atomutil-profile --import PATH --json` does: with table t, or (NULL) the table of the
 * GPU its first launch names.  opcodes -1 is atomutil-profile's default: each job priced by its
 * kernel's code where the file has it (PATH's .cubins/ folder), unless family is given (then, as
 * with --family, every launch as family); 0 never; 1 requires the code.  *json as
 * au_abi_evaluate's, why[i] for launch i. */
int au_abi_read(const char *path, const au_abi_table *t, const char *family, const char *busy, double bound,
                double significant, int opcodes, char **json, char **error);

/* Frees a string of this library (NULL: nothing). */
void au_abi_free(char *s);

#ifdef __cplusplus
}
#endif
#endif
