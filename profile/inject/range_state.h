/*
 * range_state.h - the range profiler's state in one context (range.c alone reads and writes it;
 * others ask range.h), and the counter sets.  Data only: the context record (ctx_state) holds it,
 * so that one allocation, listed before the collector's set-up, carries every module's part.
 */
#ifndef ATOMUTIL_INJECT_RANGE_STATE_H
#define ATOMUTIL_INJECT_RANGE_STATE_H

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <stddef.h>
#include <stdint.h>

/* Counter sets (model/src/metrics.c, AU_SET_*): one pass each on GH100 but the dsmem set (four:
 * kernel replay). */
enum {
    AU_INJECT_SET_STD = 0,
    AU_INJECT_SET_CLUSTER = 1,
    AU_INJECT_SET_GENERIC = 2,
    AU_INJECT_SET_DSMEM = 3,
    AU_INJECT_NSETS = 4
};
/* The AU_SET_* bit and the name of counter set `set` (AU_INJECT_SET_*). */
unsigned au_range_set_bit(int set);
const char *au_range_set_name(int set);

/* Metrics one range collects at most (model/src/metrics.c lists them; au_range_init warns when
 * they do not fit). */
#define AU_INJECT_MAX_METRICS 20

typedef struct au_range_ctx {
    int started; /* collecting (stopped while a stream is being captured) */
    /* one host object, config image and counter-data image per counter set; cur is the set
     * configured on rp (-1 before the first) */
    CUpti_Profiler_Host_Object *host[AU_INJECT_NSETS];
    CUpti_RangeProfiler_Object *rp;
    uint8_t *config[AU_INJECT_NSETS], *cdata[AU_INJECT_NSETS];
    size_t config_size[AU_INJECT_NSETS], cdata_size[AU_INJECT_NSETS];
    int cur;
    size_t passes[AU_INJECT_NSETS];            /* passes each set takes on this chip */
    unsigned char set_failed[AU_INJECT_NSETS]; /* its configuration failed (said once) */
    /* each set's metrics on this chip: those of au_range_init, less the optional ones the chip lacks */
    const char *metrics[AU_INJECT_NSETS][AU_INJECT_MAX_METRICS];
    size_t nmetrics[AU_INJECT_NSETS];
    unsigned char atomic_metric[AU_INJECT_NSETS][AU_INJECT_MAX_METRICS];
    char chip[64]; /* the chip name */
} au_range_ctx;

#endif
