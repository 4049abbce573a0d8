/*
 * sass_scan.h - which atomics a kernel's code holds, read from its cubin without a disassembler
 * (sass_scan.c), so that the injection library can pick a kernel's counter set before its launch
 * (docs/counters.md, "The generic counter set").  Pure C, no CUDA: tests/inject checks it on
 * cubins nvcc makes for every architecture.
 */
#ifndef ATOMUTIL_INJECT_SASS_SCAN_H
#define ATOMUTIL_INJECT_SASS_SCAN_H

#include <stddef.h>

/* The atomic forms of one kernel's code (bits). */
enum {
    AU_SASS_ATOMS = 1u,   /* ATOMS: shared-memory atomics */
    AU_SASS_GENERIC = 2u, /* ATOM, which can land in shared memory (sm_75-89: float adds too, which
                             never do: their opcode is that of the integer forms there) */
    AU_SASS_GLOBAL = 4u,  /* ATOMG, RED / REDG, and from sm_90 the generic float adds */
};

/* The AU_SASS_* bit of one sm_70+ instruction by its opcode (the low 12 bits of its first 8
 * bytes), 0 for an instruction that is no atomic. */
int au_sass_form(unsigned opcode);

/* Where the code of kernel `mangled` (its section ".text.<mangled>") lies in the ELF cubin
 * data[0..size): 0 and *off, *len (either may be NULL), or -1 when the data is not a 64-bit CUDA
 * ELF that holds the kernel. */
int au_cubin_text(const void *data, size_t size, const char *mangled, size_t *off, size_t *len);

/* The atomic forms (AU_SASS_* bits) in the code of kernel `mangled` (its section
 * ".text.<mangled>") of the ELF cubin data[0..size); -1 when the cubin is not a 64-bit ELF that
 * holds the kernel, or its architecture is older than sm_70 (another instruction encoding). */
int au_sass_scan(const void *data, size_t size, const char *mangled);

#endif
