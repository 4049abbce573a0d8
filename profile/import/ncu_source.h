/*
 * ncu_source.h - the entries of the CAS loops of each launch in an Nsight Compute report's source
 * page (`ncu --import FILE --csv --page source --print-source sass`), which a report made with ncu's
 * source counters (--set full, or --section SourceCounters) holds: per launch, a "Kernel Name" line,
 * a header line ("Address", "Source", ..., "Instructions Executed", ...) and a line per SASS
 * instruction with its warp-level executions.  A CAS loop is an ATOMS.CAST.SPIN with a branch back
 * to an address at or before it among the few instructions after it; its entries are the
 * executions of the instruction before the loop's first one (docs/advisor.md, "CAS loops with their
 * entries").
 */
#ifndef ATOMUTIL_NCU_SOURCE_H
#define ATOMUTIL_NCU_SOURCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One launch's page: its kernel name, its CAS loops and their entries summed; entries < 0 when a
 * loop's head or the instruction before it is not on the page, or a count does not parse. */
typedef struct au_ncu_srcpage {
    char *kernel;
    size_t loops;
    double entries;
} au_ncu_srcpage;

typedef struct au_ncu_source {
    au_ncu_srcpage *pages;
    size_t n;
} au_ncu_source;

/* Reads buf[0..len) (ncu's output, name for messages) into *out, its launches in page order.
 * AU_OK, or < 0 with au_last_error() = "NAME:LINE: what is wrong" (out of memory, a line that is
 * not CSV, a page without the columns); *out is then empty. */
int au_ncu_source_parse(const char *name, const char *buf, size_t len, au_ncu_source *out);
void au_ncu_source_free(au_ncu_source *o);

#ifdef __cplusplus
}
#endif
#endif
