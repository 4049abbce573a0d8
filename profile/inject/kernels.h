/*
 * kernels.h - what the injection library keeps of each kernel, by identity (kernels.c): its names,
 * whether its measured launches ran atomics, and the selection's facts (select.c).  With au_g.lock.
 */
#ifndef ATOMUTIL_INJECT_KERNELS_H
#define ATOMUTIL_INJECT_KERNELS_H

/* What the library keeps of one kernel (by identity: pending_launch.func, a graph's exec). */
typedef struct au_kernel_info {
    unsigned char quiet; /* 1: every measured launch ran no atomics; 2: one did */
    signed char match;   /* -k: 0 not yet known, 1 matches, -1 does not */
    long long selected;  /* launches selected for measurement (--launches-per-kernel) */
    char *name;          /* demangled, kept at first need: demangling at every launch costs */
    char *mangled;       /* kept with name (au_kernel_name), for the kernel's code (cubins.c) */
    signed char forms;   /* its code's atomic forms + 1 (AU_SASS_*; 0: not known yet) */
    unsigned char scans; /* launches at which no kept cubin held its code */
} au_kernel_info;

/* A measured launch of kernel func ran no atomics (quiet 1) or did (0); au_kernel_quiet: every
 * measured launch of it was quiet (docs/counters.md, "Quiet kernels").  Its entry, or NULL. */
au_kernel_info *au_kernel_seen(const void *func, int quiet);
int au_kernel_quiet(const void *func);
/* The kernel's entry (made at first use), NULL without func or memory. */
au_kernel_info *au_kernel_info_of(const void *func);
/* The kernel's demangled name, kept in its entry with the mangled one (cb->symbolName); a copy
 * to free. */
char *au_kernel_name(const void *func, const char *mangled);

#endif
