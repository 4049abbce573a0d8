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

/* Prices the launches of rep by the opcodes of their kernels: the "code:" lines of run (the counters
 * file counters_path, read once) name each kernel's cubin in cubin_dir; the listing of each kernel with shared-atomic jobs is
 * <crc>-<symbol>.sass there, made with nvdisasm -gi (or cuobjdump -sass) of just that function
 * and kept for later --imports; without the cubin, every <crc>-*.sass.  Listings missing there
 * come from the listing cache (docs/cli.md: $ATOMUTIL_CACHE_DIR, ...; not with
 * AU_OPCODES_NO_CACHE) or from one nvdisasm run per cubin, the cubins' runs concurrent.  Launches
 * whose kernel has no code or listing keep the --family pricing (a warning says how many).  stats
 * (may be NULL) gets the counts.  Returns AU_OK, or < 0 with au_last_error() set (AU_E_NOTFOUND:
 * the counters file names no kernel code). */
int au_opcodes_attach(au_report *rep, const au_table *t, const char *counters_path, const au_cf_run *run,
                      const char *cubin_dir, unsigned flags, au_opcodes_stats *stats);

/* Removes what a live run and au_opcodes_attach wrote into cubin_dir, and the directory. */
void au_opcodes_remove(const char *cubin_dir);

#endif
