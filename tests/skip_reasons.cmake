# skip_reasons.cmake - the test of how skipped tests say why (tests/CMakeLists.txt, ATOMUTIL_SKIP):
# the skip expression takes the last line of each kind of skipping test's output and nothing
# else, and cmake/SkippedTests.cmake lists the skipped tests of a recorded ctest log
# (tests/data/skipped) with their lines.
#   cmake -DSKIP_RE=REGEX -DSOURCE_DIR=SRC -P skip_reasons.cmake
set(_skips
    "no GPU: skipped\n"
    "atomutil-calibrate: no usable CUDA device (CUDA driver version is insufficient)\ntest_calibrate_gpu: no usable CUDA device: skipped\n\n"
    "two_gpus: SKIP (needs two GPUs, 0 visible)\n"
    "SKIP: no readelf (binutils)\n"
    "man page p.1: options complete\; groff not installed, rendering not checked\n"
    "-k sel_hist: skipped (no GPU)")
set(_others
    "FAIL: device.opcodes: no row\n"
    "no GPU: skipped\nFAIL: a line after the skip line\n"
    "test_table: 180 checks, 0 failed\n"
    "man page p.1: options complete, renders without warnings\n"
    "hostile runs: 0 passed, 0 failed, 8 skipped\n"
    "")
set(_bad 0)
foreach(_out IN LISTS _skips)
  if(NOT _out MATCHES "${SKIP_RE}")
    message("FAIL: not taken as a skip: [${_out}]")
    set(_bad 1)
  endif()
endforeach()
foreach(_out IN LISTS _others)
  if(_out MATCHES "${SKIP_RE}")
    message("FAIL: taken as a skip: [${_out}]")
    set(_bad 1)
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -DLOG_DIR=${SOURCE_DIR}/tests/data/skipped
                        -P ${SOURCE_DIR}/cmake/SkippedTests.cmake
                OUTPUT_VARIABLE _got ERROR_VARIABLE _got RESULT_VARIABLE _rc)
set(_want "
Tests skipped (4), each with its reason:
  calibrate_gpu_quick: test_calibrate_gpu: no usable CUDA device: skipped
  device.opcodes: no GPU: skipped
  hostile.two_gpus: two_gpus: SKIP (needs two GPUs, 0 visible)
  install.man.atomutil-profile: man page /src/docs/man/atomutil-profile.1: options complete; groff not installed, rendering not checked
")
if(NOT _rc EQUAL 0 OR NOT _got STREQUAL _want)
  message("FAIL: SkippedTests.cmake on tests/data/skipped (exit ${_rc}) printed\n[${_got}]\nwant\n[${_want}]")
  set(_bad 1)
endif()
if(_bad)
  message(FATAL_ERROR "skip reasons: failed")
endif()
message("skip reasons: ${CMAKE_CURRENT_LIST_FILE} passed")
