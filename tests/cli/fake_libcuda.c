/*
 * fake_libcuda.c - a stand-in libcuda.so.1 for the CPU-only tests of atomutil-profile's GPU check
 * (profile/cli/live.c: late_checks, made while the program runs).  FAKE_CUDA says what it plays:
 * nodevice (cuInit fails with CUDA_ERROR_NO_DEVICE), zero (no device), ok (one device, named
 * FAKE_CUDA_NAME, default "NVIDIA H200", compute capability 9.0).  It also loads as a stand-in
 * injection library (it has no initialization of its own), and as a driver too old for the CUDA
 * runtime of atomutil-calibrate (cuDriverGetVersion, the runtime's first question).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode(void)
{
    const char *m = getenv("FAKE_CUDA");
    return m ? m : "ok";
}

int cuInit(unsigned flags)
{
    (void)flags;
    return strcmp(mode(), "nodevice") == 0 ? 100 : 0;
}

int cuDeviceGetCount(int *count)
{
    *count = strcmp(mode(), "zero") == 0 ? 0 : 1;
    return 0;
}

int cuGetErrorString(int error, const char **s)
{
    *s = error == 100 ? "no CUDA-capable device is detected" : "unknown error";
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    *dev = ordinal;
    return ordinal == 0 ? 0 : 101;
}

int cuDeviceGetName(char *name, int len, int dev)
{
    const char *n = getenv("FAKE_CUDA_NAME");
    snprintf(name, (size_t)len, "%s", n ? n : "NVIDIA H200");
    return dev == 0 ? 0 : 101;
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
    *v = attr == 75 ? 9 : 0; /* compute capability 9.0 */
    return dev == 0 ? 0 : 101;
}

/* The CUDA version the driver supports: FAKE_CUDA_DRIVER_VERSION (1000 * major + 10 * minor),
 * default 12020 (12.2). */
int cuDriverGetVersion(int *v)
{
    const char *s = getenv("FAKE_CUDA_DRIVER_VERSION");
    *v = s ? atoi(s) : 12020;
    return 0;
}
