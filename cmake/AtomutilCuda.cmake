# CUDA for atomutil: language, target architecture, toolkit (CUPTI comes with it).
# Without a CUDA compiler the GPU parts are left out (the offline report still builds) unless
# ATOMUTIL_REQUIRE_CUDA is ON, as in CI.  Sets ATOMUTIL_HAVE_CUDA.
# Default architecture: the compute capability of the first GPU that nvidia-smi reports, else 90
# (Hopper, the architecture of the shipped tables).  Override with -DCMAKE_CUDA_ARCHITECTURES=...
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(ATOMUTIL_REQUIRE_CUDA)
    message(FATAL_ERROR "no CUDA compiler found (set CUDACXX or put nvcc on PATH)")
  endif()
  message(WARNING "atomutil: no CUDA compiler found: building only the offline parts "
                  "(model library, atomutil-profile --import)")
  set(ATOMUTIL_HAVE_CUDA OFF)
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(_au_arch 90)
  find_program(_au_nvidia_smi nvidia-smi)
  if(_au_nvidia_smi)
    execute_process(COMMAND ${_au_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _au_cc RESULT_VARIABLE _au_rc ERROR_QUIET TIMEOUT 20)
    if(_au_rc EQUAL 0 AND _au_cc MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_au_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_au_arch} CACHE STRING "CUDA architectures")
  message(STATUS "atomutil: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(ATOMUTIL_HAVE_CUDA ON)
