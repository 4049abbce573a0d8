/*
 * internal.h - what the model library's translation units share: the public API plus the
 * helpers of atomutil/util.h (error slot, parsing, file reading).  Not installed.
 */
#ifndef ATOMUTIL_MODEL_INTERNAL_H
#define ATOMUTIL_MODEL_INTERNAL_H

#include "atomutil/model.h"
#include "atomutil/util.h"

/* queue.c: a result whose U has a range (util_lo..util_hi): its upper end capped at 105 % (or at
 * U where U is above), then its verdict: the point estimate's when both ends agree, else
 * AU_VERDICT_UNCERTAIN. */
void au_range_finish(au_result *res, const au_thresholds *thr);

/* text.c: au_text_fit of the len bytes at s (no NUL needed). */
char *au_text_fit_n(const char *s, size_t len, char *buf, size_t size, size_t width, int pad);

#endif
