/*
 * internal.h - helpers shared by the model library's translation units (not installed).
 * Error reporting: every failure sets a thread-local message with au_set_error() and returns a
 * negative au_status; callers read it with au_last_error().
 */
#ifndef ATOMUTIL_MODEL_INTERNAL_H
#define ATOMUTIL_MODEL_INTERNAL_H

#include "atomutil/model.h"

#if defined(__GNUC__)
#define AU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AU_PRINTF(f, a)
#endif

/* Sets the last-error message and returns status, so that `return au_set_error(...)` works. */
int au_set_error(int status, const char *fmt, ...) AU_PRINTF(2, 3);
/* "NAME:LINE: message" (or "NAME: message" when line is 0). */
int au_set_error_at(int status, const char *name, long line, const char *fmt, ...) AU_PRINTF(4, 5);

/* Copies src into dst[size] with truncation; always NUL-terminates. */
void au_strlcpy(char *dst, const char *src, size_t size);
/* Reads a whole file into a malloc'ed NUL-terminated buffer (at most max bytes). */
int au_read_file(const char *path, size_t max, char **buf, size_t *len);
/* Strict number parsing of a whole field: no leading/trailing junk, finite values only. */
int au_parse_long(const char *s, long *out);
int au_parse_double(const char *s, double *out);

#endif
