/*
 * no_deepbind.c - LD_PRELOAD shim for tools/sanitize_inject.sh: CUPTI loads libnvperf_host.so
 * with RTLD_DEEPBIND, which both sanitizer runtimes refuse ("incompatible with sanitizer
 * runtime", the process dies).  This dlopen drops the flag and hands on to the next dlopen (the
 * sanitizer's), so that the injection library can run under ThreadSanitizer.  Diagnostic use only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

void *dlopen(const char *file, int flags)
{
    static void *(*next)(const char *, int);
    if (!next)
        next = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return next ? next(file, flags & ~RTLD_DEEPBIND) : NULL;
}
