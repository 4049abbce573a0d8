/*
 * atomutil/util.h - small helpers of the model library that atomutil's own tools share: the error
 * slot (error.c); string, array and file helpers, strict number parsing and the clock (util.c).
 * Not part of the model's API proper.
 */
#ifndef ATOMUTIL_UTIL_H
#define ATOMUTIL_UTIL_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define AU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AU_PRINTF(f, a)
#endif

/* Sets the last-error message (see au_last_error) and returns status: `return au_set_error(...)`. */
int au_set_error(int status, const char *fmt, ...) AU_PRINTF(2, 3);
/* "NAME:LINE: message" (or "NAME: message" when line is 0). */
int au_set_error_at(int status, const char *name, long line, const char *fmt, ...) AU_PRINTF(4, 5);

/* Copies src into dst[size] with truncation; always NUL-terminates. */
void au_strlcpy(char *dst, const char *src, size_t size);
/* Makes room for element n of the array *(T **)array, which has room for *cap elements of size
 * bytes: doubles it (first: the size of a new one) when n == *cap.  0 on success, -1 out of memory
 * (the array is left as it was). */
int au_grow(void *array, size_t *cap, size_t n, size_t size, size_t first);
/* Copies s[0..len) into *buf (made larger when *cap bytes do not hold it and a NUL), NUL-terminated:
 * a line buffer reused from line to line.  0 on success, -1 out of memory (*buf unchanged). */
int au_copy_line(char **buf, size_t *cap, const char *s, size_t len);
/* Reads a whole file into a malloc'ed NUL-terminated buffer of at most max bytes. */
int au_read_file(const char *path, size_t max, char **buf, size_t *len);
/* For tests: fn (NULL: none) is called with the path of every file au_read_file (and so
 * au_parse_file) is about to open, so that a test can count the reads of a file.  Set it before any
 * thread reads. */
void au_read_file_trace(void (*fn)(const char *path));
/* Reads a whole file of at most max bytes (au_read_file) and hands it to parse with path as the
 * name for messages (the buffer is parse's to change in place until it returns); parse's status,
 * or au_read_file's. */
typedef int (*au_buffer_parser)(const char *name, char *buf, size_t len, void *out);
int au_parse_file(const char *path, size_t max, au_buffer_parser parse, void *out);
/* Rejects a file that is not text: AU_E_PARSE with "NAME:1: empty file<empty>" when len is 0,
 * "NAME:LINE: binary data (NUL byte): <binary>" when buf holds a NUL byte (LINE: the NUL's);
 * else AU_OK. */
int au_check_text(const char *name, const char *buf, size_t len, const char *empty, const char *binary);
/* qsort's comparison of two ints, ascending. */
int au_cmp_int(const void *x, const void *y);
/* Monotonic seconds (CLOCK_MONOTONIC), for the differences that time phases. */
double au_monotonic_s(void);
/* Strict parsing of a whole string: no blanks or junk around it, finite values only
 * (no nan/inf/hex).  Return AU_OK or AU_E_PARSE. */
int au_parse_long(const char *s, long *out);
int au_parse_double(const char *s, double *out);

/* Names from outside (kernel, GPU and program names, paths) in the output (docs/cli.md, "Names in
 * the output"): valid UTF-8 is kept, each ill-formed UTF-8 sequence becomes U+FFFD, control
 * characters (U+0000-001F, U+007F-009F) and bidirectional overrides become '?' (PLAIN, CSV) or
 * \uXXXX (JSON). */
typedef enum au_text_mode {
    AU_TEXT_PLAIN, /* terminal text, stderr */
    AU_TEXT_CSV,   /* one quoted field, '"' doubled (RFC 4180) */
    AU_TEXT_JSON,  /* a string literal, '"' and '\\' escaped (RFC 8259) */
} au_text_mode;
void au_fput_text(FILE *out, const char *s, au_text_mode mode);
/* s as PLAIN text in buf[size]: cut to width display columns with a trailing '~' where wider (0:
 * no cut), then, when pad, padded with blanks to width columns; where buf is too small, cut short
 * at a character boundary with a '~'.  Returns buf. */
char *au_text_fit(const char *s, char *buf, size_t size, size_t width, int pad);
/* Display columns of s written as PLAIN text (an East Asian wide character takes two). */
size_t au_text_width(const char *s);

#ifdef __cplusplus
}
#endif
#endif
