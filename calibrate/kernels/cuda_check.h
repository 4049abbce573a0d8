/*
 * cuda_check.h - the one check of CUDA runtime calls, for atomutil-calibrate's runners,
 * unit_bound, the examples, the validation harness and the device tests.  CUDA_CHECK(call, action)
 * runs action (return 1, exit(1), goto fail) when call returns an error, after reporting it with
 * CUDA_CHECK_REPORT(the call's text, CUDA's message).  A program defines CUDA_CHECK_PROGRAM (its
 * name) before including this and gets one line on stderr, "PROGRAM: FILE:LINE: call: message";
 * library code, which never prints, defines CUDA_CHECK_REPORT itself (calibrate/cal.h).
 * Plain C and CUDA C++ alike.
 */
#ifndef ATOMUTIL_CUDA_CHECK_H
#define ATOMUTIL_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#ifndef CUDA_CHECK_REPORT
#include <stdio.h>
#define CUDA_CHECK_REPORT(what, msg) \
    fprintf(stderr, "%s: %s:%d: %s: %s\n", CUDA_CHECK_PROGRAM, __FILE__, __LINE__, what, msg)
#endif

#define CUDA_CHECK(call, action)                                           \
    do {                                                                   \
        cudaError_t cuda_check_err_ = (call);                              \
        if (cuda_check_err_ != cudaSuccess) {                              \
            CUDA_CHECK_REPORT(#call, cudaGetErrorString(cuda_check_err_)); \
            action;                                                        \
        }                                                                  \
    } while (0)

#endif
