/*
 * contexts.c - the record the library keeps of each CUDA context (contexts.h) and the list of them:
 * made by the set-up (setup.c), never freed nor unlisted, walked by the callbacks (inject.c) and by
 * the GPU sharing (share.c) with au_g.lock held.
 */
#include "contexts.h"

#include <stdlib.h>
#include <string.h>

static ctx_state *contexts; /* the newest first; its head stored atomically (au_ctx_publish) */

ctx_state *au_ctx_find(CUcontext ctx)
{
    for (ctx_state *c = contexts; c; c = c->next)
        if (c->ctx == ctx && !__atomic_load_n(&c->recreated, __ATOMIC_ACQUIRE))
            return c;
    return NULL;
}

/* Entries are never freed nor unlisted, and the head is stored
 * atomically, so that au_ctx_created can walk the list without au_g.lock. */
void au_ctx_publish(ctx_state *c)
{
    c->next = contexts;
    __atomic_store_n(&contexts, c, __ATOMIC_RELEASE);
}

ctx_state *au_ctx_first(void)
{
    return contexts;
}

void au_ctx_retire(CUcontext ctx)
{
    for (ctx_state *c = __atomic_load_n(&contexts, __ATOMIC_ACQUIRE); c; c = c->next)
        if (c->ctx == ctx)
            __atomic_store_n(&c->recreated, 1, __ATOMIC_RELEASE);
}

void au_free_pending(ctx_state *c, size_t first_n)
{
    for (size_t i = 0; i < first_n && i < c->npend; ++i)
        free(c->pend[i].kernel);
    if (first_n >= c->npend) {
        c->npend = 0;
        return;
    }
    memmove(c->pend, c->pend + first_n, (c->npend - first_n) * sizeof *c->pend);
    c->npend -= first_n;
}
