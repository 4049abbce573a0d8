/*
 * ncu_opcodes.h - the executions of each opcode in each launch of an Nsight Compute report: the
 * raw page's AU_NCU_OPCODE_METRIC with its instance values (`ncu --import FILE --csv --page raw
 * --print-metric-instances details --metrics AU_NCU_OPCODE_METRIC`), which a report made with ncu's
 * --set full holds.  Each cell reads "TOTAL (OPCODE: N; OPCODE: N; ...)".
 */
#ifndef ATOMUTIL_NCU_OPCODES_H
#define ATOMUTIL_NCU_OPCODES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AU_NCU_OPCODE_METRIC "sass__inst_executed_per_opcode_with_modifier_all"

/* One atomic opcode of a launch (its name begins with ATOM, as ncu writes it with its modifiers)
 * and its warp-level executions. */
typedef struct au_ncu_opcount {
    char opcode[32];
    double executed;
} au_ncu_opcount;

/* One launch's row: its ID and process ID as the raw page gives them, and its atomic opcodes;
 * instances 0 when the cell had no instance values (the metric not collected for it). */
typedef struct au_ncu_oprow {
    long long id, pid;
    int instances;
    au_ncu_opcount *ops;
    size_t n;
} au_ncu_oprow;

typedef struct au_ncu_opcodes {
    au_ncu_oprow *rows;
    size_t n;
} au_ncu_opcodes;

/* Reads buf[0..len) (ncu's output, name for messages) into *out.  AU_OK (rows in page order; none
 * when the page lacks the metric's column), or < 0 with au_last_error() = "NAME:LINE: what is
 * wrong"; *out is then empty. */
int au_ncu_opcodes_parse(const char *name, const char *buf, size_t len, au_ncu_opcodes *out);
/* The row of launch id of process pid (pid < 0: any), or NULL.  *hint: where to look first (the
 * row after the last one found: launches come in page order), updated. */
const au_ncu_oprow *au_ncu_opcodes_find(const au_ncu_opcodes *o, long long id, long long pid, size_t *hint);
void au_ncu_opcodes_free(au_ncu_opcodes *o);

#ifdef __cplusplus
}
#endif
#endif
