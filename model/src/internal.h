/*
 * internal.h - what the model library's translation units share: the public API plus the
 * helpers of atomutil/util.h (error slot, parsing, file reading).  Not installed.
 */
#ifndef ATOMUTIL_MODEL_INTERNAL_H
#define ATOMUTIL_MODEL_INTERNAL_H

#include "atomutil/model.h"
#include "atomutil/util.h"

/* queue.c: the cost of one shared-atomic wavefront of generic atomics, whose instructions the
 * counters do not count, so whose passes per instruction are unknown: the least (*lo) and the
 * most (*hi) of S(n, a, 0) / a over a = 1..a_max of the generic family at its largest n (add's
 * where the table has no generic family); *family (may be NULL) gets the family used. */
int au_generic_wavefront_cost(const au_table *t, double *lo, double *hi, const char **family);
/* Whether g counts the generic atomics' instructions beside the shared-atomic wavefronts and no
 * ATOMS job (the generic counter set, or an export with that counter), outside the cluster set:
 * the wavefronts are then theirs, priced exactly as jobs of the generic family (au_model_eval). */
int au_generic_counted(const au_counters *g);
/* queue.c: a result whose U has a range (util_lo..util_hi): its upper end capped at 105 % (or at
 * U where U is above), then its verdict: the point estimate's when both ends agree, else
 * AU_VERDICT_UNCERTAIN. */
void au_range_finish(au_result *res, const au_thresholds *thr);
/* queue.c: makes res a launch without U: every figure 0, one AU_F_UNUSABLE flag, the missing
 * counters (AU_F_MISSING), why, verdict unknown. */
void au_result_unusable(au_result *res, unsigned flag, unsigned missing, const char *why);
/* queue.c: makes res unusable (AU_F_IMPLAUSIBLE) when U priced at the unit's capacity (the
 * saturated service time) is above AU_U_IMPLAUSIBLE. */
void au_result_check_util(au_result *res, double util_saturated);

/* queue.c: queue length at which jobs are priced: N (AU_BUSY_QUEUE) or the family's largest n. */
double au_pricing_n(const au_table *t, const char *family, double N, au_busy_mode busy);
/* queue.c: the tail of every pricing once res->util is set: flag AU_F_OVER_100 above 100 %, then
 * the verdict (ranged: au_range_finish, for a U with a range). */
void au_result_finish(au_result *res, const au_thresholds *thr, int ranged);

/* families.c: the handle a family's pricing passes down, looked up once: the registry's entry, or
 * for a name the registry does not hold, *buf filled by the naming convention (au_family_kind_of;
 * opcode NULL).  NULL for a NULL name. */
const au_family_def *au_family_resolve(const char *family, au_family_def *buf);
/* families.c: 1 for the CAS-class kinds (AU_KIND_CAS, AU_KIND_CAS_LOOP). */
int au_kind_is_cas_class(au_family_kind kind);

/* opsplit.c: the launch, priced as its family (l->res), priced again by the opcodes of its
 * kernel's instructions in[0..n) (counted: their jobs fields hold their executions; au_launch_eval's
 * second step, report.h): l->res becomes the class
 * result, l->ops holds the classes and the family's result.  AU_OK or < 0. */
int au_opsplit_price(au_launch *l, const au_table *t, const au_instr *in, size_t n, int counted,
                     const au_thresholds *thr, au_busy_mode busy);
/* queue.c: 0 when the GPU-wide counters of a launch of sm_count SMs pass the checks that precede
 * any pricing (docs/counters.md, "Counters that cannot be right"), else the AU_F_UNUSABLE flag of
 * the first that fails. */
unsigned au_counters_unusable(const au_table *t, const au_counters *gpu, int sm_count, au_busy_mode busy);
/* opsplit.c: classes by jobs, the largest first (stable). */
void au_classes_sort(au_class_share *cls, size_t n);
/* opsplit.c: the sorted classes' shares of jobs in words, "cast_spin 98%, popc_inc 2%" (those with
 * jobs; "" without jobs). */
void au_classes_text(const au_class_share *cls, size_t n, double jobs, char *buf, size_t size);

/* advisor.c: l->adv, what each cure would buy launch l once it is priced (NULL where nothing is to
 * cure); family is the one it was priced as where its code did not price it.  AU_OK or < 0. */
int au_launch_advise(au_launch *l, const au_table *t, const char *family, au_busy_mode busy);

/* text.c: au_text_fit of the len bytes at s (no NUL needed). */
char *au_text_fit_n(const char *s, size_t len, char *buf, size_t size, size_t width, int pad);
/* text.c: au_text_width of the len bytes at s. */
size_t au_text_width_n(const char *s, size_t len);
/* render_names.c: s as plain text from column col on, wrapped before wrap columns at a blank in the
 * line's second half (else where the line is full), continuation lines indented by indent columns;
 * not wrapped with wrap 0. */
void au_put_wrapped(const char *s, size_t col, size_t indent, size_t wrap, FILE *out);

#endif
