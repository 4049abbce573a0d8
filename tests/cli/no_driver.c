/*
 * no_driver.c - an LD_PRELOAD library that plays a machine without the NVIDIA driver on any
 * machine: every dlopen of libcuda (the CUDA runtime's, atomutil-calibrate's own check) fails as
 * it fails where no driver is installed; other libraries load as usual.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

typedef void *(*dlopen_fn)(const char *, int);

void *dlopen(const char *file, int mode)
{
    dlopen_fn real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file;
    if (base && strncmp(base, "libcuda.so", 10) == 0)
        file = "/no-nvidia-driver/libcuda.so.1"; /* not found: dlerror says so, naming libcuda.so.1 */
    return real ? real(file, mode) : NULL;
}
