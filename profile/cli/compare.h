/*
 * compare.h - `atomutil-profile --compare A B`: two evaluated reports side by side, kernel by
 * kernel (time, jobs, a, U, verdict and the change).
 */
#ifndef ATOMUTIL_PROFILE_COMPARE_H
#define ATOMUTIL_PROFILE_COMPARE_H

#include "atomutil/model.h"

#include <stdio.h>

/* Renders the comparison of two evaluated reports (fmt: AU_FMT_TABLE or AU_FMT_CSV). */
int au_compare_render(const au_report *a, const au_report *b, au_format fmt, FILE *out);

#endif
