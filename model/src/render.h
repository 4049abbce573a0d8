/*
 * render.h - the report renderers (one per file: the report's table, CSV and JSON, and
 * render_compare.c's comparison of two reports) and what they share with report.c, which
 * evaluates and picks the renderer.  Not installed.
 */
#ifndef ATOMUTIL_MODEL_RENDER_H
#define ATOMUTIL_MODEL_RENDER_H

#include "atomutil/model.h"

#include <stdio.h>

/* The human table: every launch (s: the report's kernels, in the order of their first launch), or
 * with summary one row per kernel (s sorted by GPU time); AU_OK or AU_E_NOMEM. */
int au_render_table(const au_report *r, const au_summary *s, int summary, FILE *out); /* render_table.c */
/* CSV and JSON: every launch, or one row per kernel (s sorted by GPU time) */
void au_render_csv(const au_report *r, FILE *out);  /* render_csv.c */
void au_render_json(const au_report *r, FILE *out); /* render_json.c */
int au_render_summary_csv(const au_report *r, const au_summary *s, FILE *out);
int au_render_summary_json(const au_report *r, const au_summary *s, FILE *out);

/* render_advice.c: the "what would help" block and the kernels to fix first (s: the report's
 * kernels, any order); nothing where no kernel with atomic-bound or significant launches has a cure. */
void au_render_advice(const au_report *r, const au_summary *s, FILE *out);
/* report.c: a GPU time as Nsight Compute writes durations, in ns, us, ms or s ("17.38 us"; "-" when
 * ns < 0: unknown). */
char *au_duration_text(double ns, char *buf, size_t size);
/* render_names.c: the kernel's short name as plain text, cut to width columns, padded to them when pad
 * (a table cell). */
char *au_kernel_fit(const char *kernel, char *buf, size_t size, size_t width, int pad);
/* report.c: a launch's grid or block as the source wrote it, "(528, 1, 1)" (CSV, JSON), or as the
 * table shows it, "528x1x1" (cross); "" when the source did not give it (known 0). */
char *au_dims_text(const unsigned d[3], int known, int cross, char *buf, size_t size);
/* report.c: the verdicts of the ends of x's U range. */
void au_range_verdicts(const au_result *x, const au_thresholds *thr, au_verdict *lo, au_verdict *hi);

#endif
