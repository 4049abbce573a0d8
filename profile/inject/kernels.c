/*
 * kernels.c - the table of kernels by identity (pending_launch.func, a graph's exec): their names,
 * demangled once, the quiet ones and the selection's counts (kernels.h).  Open addressing, the
 * capacity a power of two; used with au_g.lock held.
 */
#include "kernels.h"

#include "base.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct {
    const void **kern_key;
    au_kernel_info *kern_info;
    size_t kern_n, kern_cap;
} s;

static size_t kern_slot(const void *func)
{
    uintptr_t h = (uintptr_t)func;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 7) & (s.kern_cap - 1);
    while (s.kern_key[i] && s.kern_key[i] != func)
        i = (i + 1) & (s.kern_cap - 1);
    return i;
}

/* Doubles the table (it grows at half full); -1 without memory (the table stays as it was). */
static int kern_grow(void)
{
    size_t ocap = s.kern_cap, ncap = ocap ? ocap * 2 : 256;
    const void **ok = s.kern_key;
    au_kernel_info *oi = s.kern_info;
    const void **nk = calloc(ncap, sizeof *nk);
    au_kernel_info *ni = calloc(ncap, sizeof *ni);
    if (!nk || !ni) {
        free(nk);
        free(ni);
        return -1;
    }
    s.kern_key = nk;
    s.kern_info = ni;
    s.kern_cap = ncap;
    for (size_t i = 0; i < ocap; ++i)
        if (ok[i]) {
            size_t j = kern_slot(ok[i]);
            nk[j] = ok[i];
            ni[j] = oi[i];
        }
    free(ok);
    free(oi);
    return 0;
}

au_kernel_info *au_kernel_info_of(const void *func)
{
    if (!func || (2 * (s.kern_n + 1) > s.kern_cap && kern_grow() != 0))
        return NULL;
    size_t i = kern_slot(func);
    if (!s.kern_key[i]) {
        s.kern_key[i] = func;
        s.kern_n++;
    }
    return &s.kern_info[i];
}

char *au_kernel_name(const void *func, const char *mangled)
{
    au_kernel_info *k = au_kernel_info_of(func);
    if (!k)
        return au_demangle(mangled);
    if (!k->name)
        k->name = au_demangle(mangled);
    if (!k->mangled && mangled)
        k->mangled = strdup(mangled); /* NULL without memory: its code is then not kept */
    return k->name ? strdup(k->name) : NULL;
}

au_kernel_info *au_kernel_seen(const void *func, int quiet)
{
    au_kernel_info *k = au_kernel_info_of(func);
    /* once a kernel ran atomics it stays out: a kernel whose generic atomics only the cluster set
     * counts would otherwise look quiet again at every launch measured with the standard set */
    if (k && k->quiet != 2)
        k->quiet = quiet ? 1 : 2;
    return k;
}

int au_kernel_quiet(const void *func)
{
    if (!func || !s.kern_cap)
        return 0;
    size_t i = kern_slot(func);
    return s.kern_key[i] == func && s.kern_info[i].quiet == 1;
}
