/*
 * atomutil/select.h - which launches are measured and reported (part of atomutil/model.h), with
 * Nsight Compute's meanings: of the launches whose kernel matches -k (the candidates, in launch
 * order), the first --launch-skip are skipped, at most --launch-count are selected, and at most
 * --launches-per-kernel of each kernel.  One rule for the injection library, which applies it while
 * the program runs (profile/inject/select.c), and for atomutil-profile, which applies it to the
 * files it imports; each side keeps its own name test and per-kernel counts.
 */
#ifndef ATOMUTIL_SELECT_H
#define ATOMUTIL_SELECT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct au_selector {
    long long skip;       /* candidates skipped first (0: none) */
    long long count;      /* at most this many selected; -1: no limit */
    long long per_kernel; /* at most this many of each kernel; -1: no limit */
    long long candidates; /* candidates seen so far */
    long long selected;   /* of them selected */
} au_selector;

/* A selector with these limits, nothing seen yet. */
void au_selector_init(au_selector *s, long long skip, long long count, long long per_kernel);
/* 1 when nothing more will be selected (--launch-count reached). */
int au_selector_exhausted(const au_selector *s);
/* The next candidate: 1 when it is selected (counted in s->selected), 0 when not.  of_kernel: how
 * many launches of its kernel were selected so far, which the caller keeps and counts up on 1; -1
 * where the kernel is not known (never selected under a per-kernel limit). */
int au_selector_take(au_selector *s, long long of_kernel);

#ifdef __cplusplus
}
#endif
#endif
