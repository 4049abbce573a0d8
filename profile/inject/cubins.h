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
/* A measured launch of the kernel ran atomics: its code is kept (range.c, when its range is
 * decoded; graph launches at their exit). */
void au_cubin_note_launch(const char *mangled);

#endif
