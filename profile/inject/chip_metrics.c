/*
 * chip_metrics.c - a chip's metrics and passes through CUPTI's Profiler Host API (chip_metrics.h).
 */
#include "chip_metrics.h"

#include <stdlib.h>

int au_chip_config_image(CUpti_Profiler_Host_Object *host, uint8_t **image, size_t *size, size_t *passes)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {.structSize =
                                                            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = host;
    if (cuptiProfilerHostGetConfigImageSize(&sz) != CUPTI_SUCCESS)
        return -1;
    uint8_t *img = malloc(sz.configImageSize ? sz.configImageSize : 1);
    if (!img)
        return -1;
    CUpti_Profiler_Host_GetConfigImage_Params ci = {.structSize =
                                                        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    ci.pHostObject = host;
    ci.configImageSize = sz.configImageSize;
    ci.pConfigImage = img;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize =
                                                        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = sz.configImageSize;
    np.pConfigImage = img;
    if (cuptiProfilerHostGetConfigImage(&ci) != CUPTI_SUCCESS ||
        cuptiProfilerHostGetNumOfPasses(&np) != CUPTI_SUCCESS) {
        free(img);
        return -1;
    }
    *image = img;
    *size = sz.configImageSize;
    *passes = np.numOfPasses;
    return 0;
}

int au_chip_passes(const char *chip, const uint8_t *avail, const char *const *m, size_t n)
{
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = (uint8_t *)avail; /* CUPTI only reads it */
    if (n == 0 || cuptiProfilerHostInitialize(&hi) != CUPTI_SUCCESS)
        return -1;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize =
                                                           CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = hi.pHostObject;
    add.ppMetricNames = (const char **)m; /* CUPTI does not write them */
    add.numMetrics = n;
    uint8_t *image = NULL;
    size_t size = 0, passes = 0;
    int p = cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS &&
                    au_chip_config_image(hi.pHostObject, &image, &size, &passes) == 0
                ? (int)passes
                : -1;
    free(image);
    CUpti_Profiler_Host_Deinitialize_Params d = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    d.pHostObject = hi.pHostObject;
    cuptiProfilerHostDeinitialize(&d);
    return p;
}

size_t au_chip_usable(const char *chip, const uint8_t *avail, const char *const *m, size_t n, const char **kept,
                      void (*missing)(const char *name, void *ud), void *ud)
{
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        if (au_chip_passes(chip, avail, &m[i], 1) > 0)
            kept[k++] = m[i];
        else if (missing)
            missing(m[i], ud);
    }
    return k;
}
