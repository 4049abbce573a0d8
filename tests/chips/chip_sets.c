/*
 * chip_sets.c - offline, no GPU: for every chip that this CUPTI's Profiler Host API knows, whether
 * the injection library's two counter sets (model/src/metrics.c: the standard set, and the cluster
 * set for launches with thread block clusters) can be configured, in how many passes, and which of
 * their metrics the chip lacks (required ones marked '!').  One line per chip and set:
 *   CHIP  SET      passes P   missing: METRIC[!], ... | none
 * P is the set without the missing metrics ('-' when nothing of it configures).  tests/chips
 * compares the output with tests/data/chip-sets.txt; docs/counters.md ("Counters per chip") shows it.
 */
#include <cupti.h>
#include <cupti_profiler_host.h>

#include "atomutil/model.h"

#include <stdio.h>
#include <string.h>

#define MAX_SET 32

/* The passes of a configuration of metrics m[0..n), -1 when CUPTI refuses it. */
static int passes(const char *chip, const char *const *m, size_t n)
{
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    if (n == 0 || cuptiProfilerHostInitialize(&hi) != CUPTI_SUCCESS)
        return -1;
    int p = -1;
    uint8_t image[1 << 16];
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize =
                                                           CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = hi.pHostObject;
    add.ppMetricNames = (const char **)m; /* CUPTI does not write them */
    add.numMetrics = n;
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {.structSize =
                                                            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = hi.pHostObject;
    if (cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS &&
        cuptiProfilerHostGetConfigImageSize(&sz) == CUPTI_SUCCESS && sz.configImageSize <= sizeof image) {
        CUpti_Profiler_Host_GetConfigImage_Params ci = {.structSize =
                                                            CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
        ci.pHostObject = hi.pHostObject;
        ci.configImageSize = sz.configImageSize;
        ci.pConfigImage = image;
        CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize =
                                                            CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
        np.configImageSize = sz.configImageSize;
        np.pConfigImage = image;
        if (cuptiProfilerHostGetConfigImage(&ci) == CUPTI_SUCCESS &&
            cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS)
            p = (int)np.numOfPasses;
    }
    CUpti_Profiler_Host_Deinitialize_Params d = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    d.pHostObject = hi.pHostObject;
    cuptiProfilerHostDeinitialize(&d);
    return p;
}

/* One set on one chip: its collected metrics (as profile/inject/inject.c picks them: the counters
 * and the duration; device name, SM count and cluster size come from the driver). */
static void report_set(const char *chip, unsigned set, const char *set_name)
{
    size_t ndefs, n = 0, kept = 0;
    const au_metric_def *defs = au_metric_defs(&ndefs);
    const char *ok[MAX_SET];
    char missing[2048] = "";
    for (size_t i = 0; i < ndefs && n < MAX_SET; ++i) {
        if (!(defs[i].sets & set) || strcmp(defs[i].name, AU_METRIC_CLUSTER_SIZE) == 0 ||
            (!defs[i].counter && strcmp(defs[i].name, AU_METRIC_DURATION) != 0))
            continue;
        n++;
        if (passes(chip, &defs[i].name, 1) > 0) {
            ok[kept++] = defs[i].name;
        } else {
            size_t o = strlen(missing);
            snprintf(missing + o, sizeof missing - o, "%s%s%s", o ? ", " : "", defs[i].name,
                     defs[i].required ? "!" : "");
        }
    }
    int p = passes(chip, ok, kept);
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
    }
    return 0;
}
