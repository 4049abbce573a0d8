/*
 * select.c - the launch selector of atomutil/select.h: -k's candidates skipped, counted and capped
 * per kernel in launch order, the same in the injection library and in atomutil-profile.
 */
#include "atomutil/select.h"

void au_selector_init(au_selector *s, long long skip, long long count, long long per_kernel)
{
    s->skip = skip;
    s->count = count;
    s->per_kernel = per_kernel;
    s->candidates = 0;
    s->selected = 0;
}

int au_selector_exhausted(const au_selector *s)
{
    return s->count >= 0 && s->selected >= s->count;
}

int au_selector_take(au_selector *s, long long of_kernel)
{
    s->candidates++;
    if (s->candidates <= s->skip || au_selector_exhausted(s))
        return 0;
    if (s->per_kernel >= 0 && (of_kernel < 0 || of_kernel >= s->per_kernel))
        return 0;
    s->selected++;
    return 1;
}
