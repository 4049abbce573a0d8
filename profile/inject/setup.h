/*
 * setup.h - a context's set-up for collection (setup.c): beside the program from the moment it is
 * created (the early set-up), or at its first measured launch.
 */
#ifndef ATOMUTIL_INJECT_SETUP_H
#define ATOMUTIL_INJECT_SETUP_H

#include "contexts.h"

/* Reads ATOMUTIL_EARLY_SETUP (InitializeInjection, before any callback). */
void au_ctx_setup_init(void);
/* All with au_g.lock but au_ctx_created: the context's entry, made (and set up) at need, waiting
 * for an early set-up in progress (NULL: no memory, or it hung); au_ctx_created starts the early
 * set-up of a context just created (from the resource callback, without au_g.lock); the waits for
 * early set-ups before a context's destruction and the exit. */
ctx_state *au_ctx_get(CUcontext ctx);
void au_ctx_created(CUcontext ctx);
int au_ctx_wait_early(ctx_state *c);
void au_ctx_wait_all_early(void);

#endif
