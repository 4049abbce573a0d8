/*
 * opcodes.h - atomutil-profile --opcodes (docs/opcodes.md): every launch priced by the table
 * families of its kernel's ATOMS opcodes, read from the kernel's cubin, which the live run keeps in
 * BASE.cubins/ and names on "code:" lines of BASE.counters.csv.
 */
#ifndef ATOMUTIL_PROFILE_OPCODES_H
#define ATOMUTIL_PROFILE_OPCODES_H

#include "atomutil/model.h"
#include "run.h"

/* 1 if cubin_dir exists (a live run of atomutil-profile kept kernel code there). */
int au_opcodes_have_code(const char *cubin_dir);

/* What au_opcodes_attach did to get the listings, for --timing. */
typedef struct au_opcodes_stats {
    int cubins;         /* cubins with a kernel whose listing was missing */
    int cache_hits;     /* listings copied from the listing cache */
    int cache_bad;      /* cache entries that failed their checks (removed and made again) */
    int nvdisasm_runs;  /* nvdisasm processes started */
    int cuobjdump_runs; /* cuobjdump processes started (where nvdisasm could not list a kernel) */
} au_opcodes_stats;

/* Flags of au_opcodes_attach. */
enum {
    AU_OPCODES_QUIET = 1,    /* no warnings or notes on stderr */
    AU_OPCODES_NO_CACHE = 2, /* no listing cache (--no-cache) */
};

/* One file's kernel code, from au_opcodes_attach to au_opcodes_report. */
typedef struct au_opcodes au_opcodes;

/* Before the evaluation: attaches to each launch of rep whose counters may want it
 * (au_launch_may_want_code) its kernel's instructions (au_launch.code, .sites), which its one
 * evaluation prices it by (au_launch_eval).  The "code:" lines of run (the counters file
 * counters_path, read once) name each kernel's cubin in cubin_dir; the listing of each kernel is
 * <crc>-<symbol>.sass there, made with nvdisasm -gi (or cuobjdump -sass) of just that function and
 * kept for later --imports; without the cubin, every <crc>-*.sass.  Listings missing there come
 * from the listing cache (docs/cli.md: $ATOMUTIL_CACHE_DIR, ...; not with AU_OPCODES_NO_CACHE) or
 * from one nvdisasm run per cubin, the cubins' runs concurrent.  Nothing is said on stderr yet.
 * *out: what au_opcodes_report needs (free with au_opcodes_free; the attached code lives in it);
 * stats gets the counts.  Returns AU_OK, or < 0 with au_last_error() set (AU_E_NOTFOUND: the
 * counters file names no kernel code). */
int au_opcodes_attach(au_opcodes **out, au_report *rep, const au_table *t, au_busy_mode busy, const char *counters_path,
                      const au_cf_run *run, const char *cubin_dir, unsigned flags, au_opcodes_stats *stats);
/* After the evaluation (rep's launches, evaluated): the listing cache's note and the warnings of
 * the launches that the code was to price (au_launch_wants_code) but could not: no code, no
 * listing, no atomic instruction in it; those keep the --family pricing.  o NULL: nothing. */
void au_opcodes_report(au_opcodes *o, const au_report *rep);
void au_opcodes_free(au_opcodes *o);

/* An Nsight Compute report's executions per opcode as its launches' code (ncu_opcodes.h). */
typedef struct au_opcodes_ncu au_opcodes_ncu;

/* Before the evaluation: attaches to each launch of rep, all read from path (a report, whose counts
 * ncu exports (report 1), or a raw page export that holds them; run.h's ncu_opcodes), the atomic
 * opcodes of its row with their executions (au_launch_code.counted: they split the jobs among the
 * classes).  A launch without a row, or whose row has no instance values, gets none (priced as
 * --family).  *out: what the code lives in, to free with au_opcodes_ncu_free after the evaluation;
 * *attached: the launches given code; note (note_size bytes; NULL with 0: none wanted): empty, or
 * why a report's source counters gave its CAS loops no entries, for a warning.  AU_OK, or < 0 with au_last_error() set. */
int au_opcodes_ncu_attach(au_opcodes_ncu **out, au_report *rep, const char *path, int report, size_t *attached,
                          char *note, size_t note_size);
void au_opcodes_ncu_free(au_opcodes_ncu *o);

/* Removes what a live run and au_opcodes_attach wrote into cubin_dir, and the directory. */
void au_opcodes_remove(const char *cubin_dir);

#endif
