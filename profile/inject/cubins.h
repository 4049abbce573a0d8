/*
 * cubins.h - the code of the measured kernels, for atomutil-profile --opcodes (cubins.c): with
 * ATOMUTIL_CUBIN_DIR every loaded module's cubin is kept; at a kernel's first measured launch that
 * ran atomics the cubin holding it is written there with a "code:" line naming it.
 */
#ifndef ATOMUTIL_INJECT_CUBINS_H
#define ATOMUTIL_INJECT_CUBINS_H

#include <cupti.h>

#include <stddef.h>

/* Reads ATOMUTIL_CUBIN_DIR (InitializeInjection, before any callback). */
void au_cubin_init(void);
/* ATOMUTIL_CUBIN_DIR as read at init (NULL: not set): where the cubins of measured kernels go. */
const char *au_cubin_dir(void);
void au_cubin_loaded(const CUpti_ModuleResourceData *m); /* without au_g.lock (cubins.c says why) */
/* Seconds in the module-load callback; the cubins kept, their bytes, and the modules not kept
 * (-k's module filter). */
double au_cubin_load_seconds(size_t *kept, size_t *bytes, size_t *skipped);
/* The atomic forms of kernel `mangled`'s code (AU_SASS_* bits, sass_scan.h) in the most recently
 * loaded kept cubin that holds it; -1 when none does (no cubins kept without ATOMUTIL_CUBIN_DIR,
 * or its module not loaded yet: lazy loading loads it during its first launch). */
int au_cubin_forms(const char *mangled);
/* Whether kernel func's code has generic atomics that can land in shared memory, read from its
 * cubin at its first launches and kept in its au_kernel_info: 1 yes, 0 no or not known (no kept
 * cubin holds it yet; given up after a few launches).  au_kernel_name must have named func. */
int au_cubin_generic(const void *func);
/* A measured launch of the kernel ran atomics: its code is kept (range.c, when its range is
 * decoded; graph launches at their exit). */
void au_cubin_note_launch(const char *mangled);

#endif
