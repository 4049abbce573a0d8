/*
 * util.c - the general helpers of atomutil/util.h that the model library and atomutil's tools
 * share: bounded string copy, array growth, line buffers, whole-file reading, the check that a
 * file is text, strict number parsing and the monotonic clock.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void au_strlcpy(char *dst, const char *src, size_t size)
{
    if (size == 0)
        return;
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int au_grow(void *array, size_t *cap, size_t n, size_t size, size_t first)
{
    void **pa = array;
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : first;
    if (ncap <= n || ncap > SIZE_MAX / size)
        return -1;
    void *na = realloc(*pa, ncap * size);
    if (!na)
        return -1;
    *pa = na;
    *cap = ncap;
    return 0;
}

int au_copy_line(char **buf, size_t *cap, const char *s, size_t len)
{
    if (len + 1 > *cap) {
        char *nb = realloc(*buf, len + 1);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = len + 1;
    }
    memcpy(*buf, s, len);
    (*buf)[len] = '\0';
    return 0;
}

static void (*read_trace)(const char *path);

void au_read_file_trace(void (*fn)(const char *path))
{
    read_trace = fn;
}

int au_read_file(const char *path, size_t max, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (read_trace)
        read_trace(path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return au_set_error(AU_E_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 65536, n = 0;
    char *b = malloc(cap + 1);
    int rc = AU_OK;
    if (!b) {
        rc = au_set_error(AU_E_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                rc = au_set_error(AU_E_PARSE, "%s: file larger than %zu bytes", path, max);
                goto done;
            }
            size_t ncap = cap * 2 > max ? max : cap * 2;
            char *nb = realloc(b, ncap + 1);
            if (!nb) {
                rc = au_set_error(AU_E_NOMEM, "%s: out of memory", path);
                goto done;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = au_set_error(AU_E_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
done:
    fclose(f);
    if (rc != AU_OK) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return AU_OK;
}

int au_parse_file(const char *path, size_t max, au_buffer_parser parse, void *out)
{
    char *buf;
    size_t len;
    int rc = au_read_file(path, max, &buf, &len);
    if (rc)
        return rc;
    rc = parse(path, buf, len, out);
    free(buf);
    return rc;
}

int au_parse_long(const char *s, long *out)
{
    char *end;
    /* strtol skips any leading white space, not only blanks: "\v5" and "\f5" read as 5 */
    if (!s || !*s || isspace((unsigned char)*s))
        return AU_E_PARSE;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return AU_E_PARSE;
    *out = v;
    return AU_OK;
}

int au_parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s || *s == ' ' || *s == '\t')
        return AU_E_PARSE;
    /* strtod accepts "nan", "inf" and hex floats: none belongs in our files */
    if (s[strspn(s, "0123456789+-.eE")])
        return AU_E_PARSE;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE || *end || !isfinite(v))
        return AU_E_PARSE;
    *out = v;
    return AU_OK;
}

double au_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int au_check_text(const char *name, const char *buf, size_t len, const char *empty, const char *binary)
{
    if (len == 0)
        return au_set_error_at(AU_E_PARSE, name, 1, "empty file%s", empty);
    if (memchr(buf, '\0', len)) {
        long l = 1;
        for (const char *q = buf; *q; ++q)
            l += *q == '\n';
        return au_set_error_at(AU_E_PARSE, name, l, "binary data (NUL byte): %s", binary);
    }
    return AU_OK;
}

int au_cmp_int(const void *x, const void *y)
{
    int p = *(const int *)x, q = *(const int *)y;
    return (p > q) - (p < q);
}
