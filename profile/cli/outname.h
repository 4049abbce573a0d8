/*
 * outname.h - the patterns of `-o BASE` (docs/cli.md, "-o patterns"), as Nsight Systems and Nsight
 * Compute spell them: %p the profiled process's id, %q{ENV} an environment variable, %% a '%'.
 */
#ifndef ATOMUTIL_PROFILE_OUTNAME_H
#define ATOMUTIL_PROFILE_OUTNAME_H

#include <stddef.h>

/* pattern with its %-sequences expanded, %p as pid: a malloc'ed string, or NULL after one error
 * line on stderr naming what is wrong (another %x, a lone '%', %q without {ENV}, ENV unset, out
 * of memory); usage_error (may be NULL) tells the first from out of memory. */
char *au_outname_expand(const char *pattern, long pid, int *usage_error);

/* 1 when pattern has a %p (not one of %%p). */
int au_outname_has_pid(const char *pattern);

/* pattern expanded with %p as pid into base[size]: -1, or the exit status after the error line
 * (%p where the report's process is unknown, pid < 0; a pattern au_outname_expand refuses). */
int au_outname_base(const char *pattern, long pid, char *base, size_t size);

#endif
