/*
 * rgba_image.h - what the histogram examples share: the test images (solid, uniform, natural),
 * their CPU reference histogram and two small helpers of the command lines.  Header-only (static
 * functions); examples/histogram and examples/cluster_histogram include it, so both count the
 * same data.  Host code only; no atomutil library.
 */
#ifndef ATOMUTIL_EXAMPLES_RGBA_IMAGE_H
#define ATOMUTIL_EXAMPLES_RGBA_IMAGE_H

#include <cuda_runtime.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RGBA_BINS 256 /* bins per channel; 4 channels */

static int parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

enum { IMG_SOLID, IMG_UNIFORM, IMG_NATURAL, NIMAGES };
static const char *const image_names[NIMAGES] = {"solid", "uniform", "natural"};

static unsigned char clamp_u8(double v)
{
    return v < 0 ? 0 : v > 255 ? 255 : (unsigned char)v;
}

/* Fills the image: solid = one colour everywhere, uniform = independent random bytes, natural =
 * a generated landscape in a near-square raster (pixel i at column i % w, row i / w): a sky
 * gradient above a wavy horizon, a sun, a ground of smoothly varying greens and browns, a few
 * levels of sensor noise, alpha 255.  Its histogram is skewed (sky and ground fill narrow bands,
 * alpha one bin) and lanes of a warp, neighbours in a row, often hit the same bins. */
static void make_image(uchar4 *img, size_t npix, int kind, unsigned long long seed)
{
    unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 1;
    size_t w = 1;
    while (w * w < npix)
        w *= 2;
    const size_t h = (npix + w - 1) / w;
    for (size_t i = 0; i < npix; ++i) {
        if (kind == IMG_SOLID) {
            img[i] = make_uchar4(200, 100, 50, 255);
            continue;
        }
        s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
        if (kind == IMG_UNIFORM) {
            img[i] = make_uchar4((unsigned char)s, (unsigned char)(s >> 8), (unsigned char)(s >> 16),
                                 (unsigned char)(s >> 24));
            continue;
        }
        const double u = (double)(i % w) / (double)w, v = (double)(i / w) / (double)h;
        const double noise = (double)(s & 7) - 3.5; /* +-3.5 levels */
        const double horizon = 0.45 + 0.06 * sin(9.4 * u) + 0.03 * sin(23.0 * u + 1.0);
        const double du = u - 0.72, dv = v - 0.18;
        double r, g, b;
        if (du * du + dv * dv < 0.0025) { /* sun */
            r = 255, g = 244, b = 214;
        } else if (v < horizon) { /* sky: lighter towards the horizon */
            const double t = v / horizon;
            r = 70 + 90 * t, g = 120 + 80 * t, b = 210 + 30 * t;
        } else { /* ground: two slowly varying fields mix greens and browns */
            const double f1 = 0.5 + 0.25 * sin(13.0 * u + 7.0 * v) + 0.25 * sin(5.0 * u - 11.0 * v + 1.3);
            const double f2 = 0.5 + 0.5 * sin(3.0 * u + 17.0 * v * v);
            const double shade = 0.6 + 0.4 * (v - horizon) / (1.0 - horizon + 1e-9);
            r = (60 + 70 * f2) * shade, g = (90 + 70 * f1) * shade, b = (30 + 30 * f1 * f2) * shade;
        }
        img[i] = make_uchar4(clamp_u8(r + noise), clamp_u8(g + noise), clamp_u8(b + noise), 255);
    }
}

/* CPU reference histogram, channel-major like the kernels' output. */
static void cpu_histogram(const uchar4 *img, size_t npix, unsigned *ref)
{
    memset(ref, 0, RGBA_BINS * 4 * sizeof *ref);
    for (size_t i = 0; i < npix; ++i) {
        ref[0 * RGBA_BINS + img[i].x]++;
        ref[1 * RGBA_BINS + img[i].y]++;
        ref[2 * RGBA_BINS + img[i].z]++;
        ref[3 * RGBA_BINS + img[i].w]++;
    }
}

#endif
