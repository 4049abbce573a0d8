# CUDA for atomutil: language, target architecture, toolkit (CUPTI comes with it).
# Without a CUDA compiler the GPU parts are left out (the offline report still builds) unless
# ATOMUTIL_REQUIRE_CUDA is ON, as in CI.  Sets ATOMUTIL_HAVE_CUDA.
# Architectures (ATOMUTIL_CUDA_ARCHS, docs/portability.md): "native", the compute capability of the
# first GPU that nvidia-smi reports; "portable", SASS for every major architecture from Turing on
# that this nvcc compiles for (sm_75, 80, 90, 100, 110, 120: a major's SASS runs on its later
# minors) and PTX for the newest, so that a build made without a GPU (a package, CI, a login node)
# runs on any of them; "auto" (default), native where a GPU is visible, else portable.
# -DCMAKE_CUDA_ARCHITECTURES=... overrides all of it.
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
set(ATOMUTIL_CUDA_ARCHS auto CACHE STRING "CUDA architectures: auto, native or portable")
set_property(CACHE ATOMUTIL_CUDA_ARCHS PROPERTY STRINGS auto native portable)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(_au_native "")
  find_program(_au_nvidia_smi nvidia-smi)
  if(_au_nvidia_smi AND NOT ATOMUTIL_CUDA_ARCHS STREQUAL "portable")
    execute_process(COMMAND ${_au_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _au_cc RESULT_VARIABLE _au_rc ERROR_QUIET TIMEOUT 20)
    if(_au_rc EQUAL 0 AND _au_cc MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_au_native "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  if(ATOMUTIL_CUDA_ARCHS STREQUAL "native" AND NOT _au_native)
    message(FATAL_ERROR "ATOMUTIL_CUDA_ARCHS=native but nvidia-smi shows no GPU: use portable or "
                        "-DCMAKE_CUDA_ARCHITECTURES=...")
  endif()
  if(_au_native)
    set(_au_archs ${_au_native})
  else()
    execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-code OUTPUT_VARIABLE _au_codes ERROR_QUIET
                    RESULT_VARIABLE _au_rc TIMEOUT 60)
    set(_au_archs "")
    set(_au_last "")
    foreach(_au_major 75 80 90 100 110 120)
      if(_au_codes MATCHES "sm_${_au_major}( |\n|$)")
        list(APPEND _au_archs ${_au_major}-real)
        set(_au_last ${_au_major})
      endif()
    endforeach()
    if(NOT _au_last)
      set(_au_archs 90-real)
      set(_au_last 90)
    endif()
    list(APPEND _au_archs ${_au_last}-virtual)
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_au_archs}" CACHE STRING "CUDA architectures")
  message(STATUS "atomutil: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (ATOMUTIL_CUDA_ARCHS ${ATOMUTIL_CUDA_ARCHS})")
endif()
enable_language(CUDA)
# CMake 3.25's FindCUDAToolkit sets a property on CUDA::nvToolsExt whether or not the toolkit has
# that library, which CUDA 13 no longer ships ("set_property could not find TARGET
# CUDA::nvToolsExt"); CMake 3.26 checks first.  A placeholder target lets 3.25 pass (atomutil uses
# no NVTX).
if(CMAKE_VERSION VERSION_LESS 3.26 AND NOT TARGET CUDA::nvToolsExt)
  add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
endif()
find_package(CUDAToolkit REQUIRED)
set(ATOMUTIL_HAVE_CUDA ON)

# The binaries find the toolkit's libraries without the loader's configuration (ld.so.conf,
# LD_LIBRARY_PATH), which a stock machine does not set up for the toolkit: CUDA code links the
# static CUDA runtime (CMake's default, as the toolkit's samples build), and whatever links CUPTI
# carries CUPTI's folder in its RPATH, build and install tree alike (ATOMUTIL_CUDA_RPATH).  As
# DT_RPATH, not DT_RUNPATH: CUPTI dlopen()s libnvperf_host.so, and for that the loader searches the
# RPATH of the objects that loaded CUPTI, never their RUNPATH.  Never the driver's folder: the
# toolkit's libcuda.so is a stub.
get_filename_component(_au_cupti_dir "${CUDA_cupti_LIBRARY}" DIRECTORY)
find_library(ATOMUTIL_NVPERF_HOST_LIBRARY nvperf_host HINTS "${_au_cupti_dir}" "${CUDAToolkit_LIBRARY_DIR}")
mark_as_advanced(ATOMUTIL_NVPERF_HOST_LIBRARY)
get_filename_component(_au_nvperf_dir "${ATOMUTIL_NVPERF_HOST_LIBRARY}" DIRECTORY)
set(ATOMUTIL_CUDA_RPATH "")
foreach(_au_dir IN ITEMS "${_au_cupti_dir}" "${_au_nvperf_dir}")
  # a system folder (a distribution's packaged CUPTI) is the loader's own: no RPATH
  if(_au_dir AND NOT _au_dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    list(APPEND ATOMUTIL_CUDA_RPATH "${_au_dir}")
  endif()
endforeach()
list(REMOVE_DUPLICATES ATOMUTIL_CUDA_RPATH)
if(TARGET CUDA::cupti AND ATOMUTIL_CUDA_RPATH)
  string(REPLACE ";" ":" _au_rpath "${ATOMUTIL_CUDA_RPATH}")
  set_property(TARGET CUDA::cupti APPEND PROPERTY INTERFACE_LINK_OPTIONS
               "LINKER:--disable-new-dtags" "LINKER:-rpath,${_au_rpath}")
endif()
