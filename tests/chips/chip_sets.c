/*
 * chip_sets.c - offline, no GPU: for every chip that this CUPTI's Profiler Host API knows, whether
 * the injection library's three counter sets (model/src/metrics.c: the standard set, the cluster
 * set for launches with thread block clusters, the generic set for kernels with generic atomics)
 * can be configured, in how many passes, and which of
 * their metrics the chip lacks (required ones marked '!').  One line per chip and set:
 *   CHIP  SET      passes P   missing: METRIC[!], ... | none
 * P is the set without the missing metrics ('-' when nothing of it configures).  tests/chips
 * compares the output with tests/data/chip-sets.txt; docs/counters.md ("Counters per chip") shows it.
 */
#include <cupti.h>
#include <cupti_profiler_host.h>

#include "atomutil/model.h"
#include "chip_metrics.h"

#include <stdio.h>
#include <string.h>

#define MAX_SET 32

/* One set on one chip: its collected metrics (as profile/inject/inject.c picks them: the counters
 * and the duration; device name, SM count and cluster size come from the driver). */
/* missing(): the metric's name, '!' when the model needs it, into the line. */
static void note_missing(const char *name, void *ud)
{
    char *missing = ud;
    size_t ndefs, o = strlen(missing);
    const au_metric_def *defs = au_metric_defs(&ndefs);
    int required = 0;
    for (size_t i = 0; i < ndefs; ++i)
        required |= strcmp(defs[i].name, name) == 0 && defs[i].required;
    snprintf(missing + o, 2048 - o, "%s%s%s", o ? ", " : "", name, required ? "!" : "");
}

static void report_set(const char *chip, unsigned set, const char *set_name)
{
    size_t ndefs, n = 0;
    const au_metric_def *defs = au_metric_defs(&ndefs);
    const char *all[MAX_SET], *ok[MAX_SET];
    char missing[2048] = "";
    for (size_t i = 0; i < ndefs && n < MAX_SET; ++i)
        if ((defs[i].sets & set) && au_metric_collected(&defs[i]))
            all[n++] = defs[i].name;
    /* the injection library's own fallback (profile/inject/chip_metrics.c, range.c) */
    size_t kept = au_chip_usable(chip, NULL, all, n, ok, note_missing, missing);
    int p = au_chip_passes(chip, NULL, ok, kept);
    char pass[16] = "-";
    if (p > 0)
        snprintf(pass, sizeof pass, "%d", p);
    printf("%-8s %-8s passes %-2s missing: %s\n", chip, set_name, pass, missing[0] ? missing : "none");
}

int main(void)
{
    CUpti_Profiler_Host_GetSupportedChips_Params sc = {.structSize =
                                                           CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
    if (cuptiProfilerHostGetSupportedChips(&sc) != CUPTI_SUCCESS || sc.numChips == 0) {
        fprintf(stderr, "chip_sets: the Profiler Host API lists no chip\n");
        return 1;
    }
    for (size_t i = 0; i < sc.numChips; ++i) {
        report_set(sc.ppChipNames[i], AU_SET_STD, "standard");
        report_set(sc.ppChipNames[i], AU_SET_CLUSTER, "cluster");
        report_set(sc.ppChipNames[i], AU_SET_GENERIC, "generic");
        report_set(sc.ppChipNames[i], AU_SET_DSMEM, "dsmem");
    }
    return 0;
}
