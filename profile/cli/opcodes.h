/*
 * opcodes.h - atomutil-profile --opcodes (docs/opcodes.md): every launch priced by the table
 * families of its kernel's ATOMS opcodes, read from the kernel's cubin, which the live run keeps in
 * BASE.cubins/ and names on "code:" lines of BASE.counters.csv.
 */
#ifndef ATOMUTIL_PROFILE_OPCODES_H
#define ATOMUTIL_PROFILE_OPCODES_H

#include "atomutil/model.h"

/* 1 if cubin_dir exists (a live run of atomutil-profile kept kernel code there). */
int au_opcodes_have_code(const char *cubin_dir);

/* Prices the launches of rep by the opcodes of their kernels: the "code:" lines of counters_path
 * name each kernel's cubin in cubin_dir; the listing of each kernel with shared-atomic jobs is
 * <crc>-<symbol>.sass there, made with nvdisasm -g (or cuobjdump -sass) of just that function (one
 * nvdisasm run per cubin) and kept for later --imports; without the cubin, every <crc>-*.sass.  Launches whose kernel has no code or
 * listing keep the --family pricing (a warning says how many).  Returns AU_OK, or < 0 with
 * au_last_error() set (AU_E_NOTFOUND: the counters file names no kernel code). */
int au_opcodes_attach(au_report *rep, const au_table *t, const char *counters_path, const char *cubin_dir,
                      int quiet);

/* Removes what a live run and au_opcodes_attach wrote into cubin_dir, and the directory. */
void au_opcodes_remove(const char *cubin_dir);

#endif
