/*
 * cuda_check.h - the check macro of the CUDA runtime calls of atomutil-calibrate's runners
 * (runner.c, dsmem.c): on failure it sets au_last_error() to the call and CUDA's message, stores
 * AU_CAL_E_GPU in the caller's `rc` and runs `action` (a goto or a return).
 */
#ifndef ATOMUTIL_CAL_CUDA_CHECK_H
#define ATOMUTIL_CAL_CUDA_CHECK_H

#include "cal.h"

#include <cuda_runtime_api.h>

#define CUDA_CHECK(call, action)                                                      \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            rc = au_set_error(AU_CAL_E_GPU, "%s: %s", #call, cudaGetErrorString(e_)); \
            action;                                                                   \
        }                                                                             \
    } while (0)

#endif
