# CUDA for atomutil: language, target architecture, toolkit (CUPTI comes with it).
# Default architecture: the compute capability of the first GPU that nvidia-smi reports, else 90
# (Hopper, the architecture atomutil's shipped tables describe).  Override with
# -DCMAKE_CUDA_ARCHITECTURES=...
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
