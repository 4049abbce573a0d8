/*
 * chip_metrics.h - which metrics a chip can collect, and in how many passes, with CUPTI's Profiler
 * Host API only (no GPU, no context): the injection library drops the optional metrics a chip
 * lacks from its counter sets (range.c), and tests/chips checks the same code offline on every
 * chip this CUPTI knows (docs/counters.md, "Counters per chip").
 */
#ifndef ATOMUTIL_CHIP_METRICS_H
#define ATOMUTIL_CHIP_METRICS_H

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <stddef.h>
#include <stdint.h>

/* The config image of the metrics added to host (malloc'ed into *image, *size bytes) and its
 * passes; 0, or -1 when CUPTI refuses it (nothing allocated). */
int au_chip_config_image(CUpti_Profiler_Host_Object *host, uint8_t **image, size_t *size, size_t *passes);

/* Passes that metrics m[0..n) take on `chip` (avail: the context's counter availability image, or
 * NULL offline); -1 when CUPTI refuses the configuration. */
int au_chip_passes(const char *chip, const uint8_t *avail, const char *const *m, size_t n);

/* Copies the metrics of m[0..n) that `chip` can collect each on its own into kept[] (in order) and
 * calls missing(name, ud) for each of the others; returns how many were kept. */
size_t au_chip_usable(const char *chip, const uint8_t *avail, const char *const *m, size_t n, const char **kept,
                      void (*missing)(const char *name, void *ud), void *ud);

#endif
