# SkippedTests.cmake - run by ctest after the tests (CTEST_CUSTOM_POST_TEST, written into the build
# tree by tests/CMakeLists.txt): lists each test that skipped, with the line in which it said why.
# ctest names skipped tests ("The following tests did not run") without their reasons, and
# --output-on-failure shows no skipped test's output; its log does hold the output, and marks the
# tests skipped by their SKIP_REGULAR_EXPRESSION (ATOMUTIL_SKIP in tests/CMakeLists.txt).
#   cmake -DLOG_DIR=BUILD/Testing/Temporary -P SkippedTests.cmake
# Prints nothing when no test skipped, and never fails (a failing post-test command fails ctest).
cmake_minimum_required(VERSION 3.25)

# the log of the run that just ended: LastTest.log.tmp while ctest runs ("LastTest_DATE.log.tmp"
# in dashboard mode), LastTest.log where a ctest renames it earlier
file(GLOB _logs "${LOG_DIR}/LastTest*.log.tmp")
if(NOT _logs)
  file(GLOB _logs "${LOG_DIR}/LastTest*.log")
endif()
if(NOT _logs)
  return()
endif()
list(SORT _logs)
list(POP_BACK _logs _log)
file(READ "${_log}" _rest)

set(_mark "\nSkip regular expression found in output.")
set(_names "")
while(TRUE)
  string(FIND "${_rest}" "${_mark}" _at)
  if(_at EQUAL -1)
    break()
  endif()
  # the output ends at the last "<end of output>" before the mark; its last line says why
  string(SUBSTRING "${_rest}" 0 ${_at} _head)
  string(FIND "${_head}" "\n<end of output>" _end REVERSE)
  string(SUBSTRING "${_head}" 0 ${_end} _out)
  string(REGEX REPLACE "\n+$" "" _out "${_out}")
  string(FIND "${_out}" "\n" _nl REVERSE)
  math(EXPR _nl "${_nl} + 1")
  string(SUBSTRING "${_out}" ${_nl} -1 _why)
  # the test's name: the line '"NAME" end time: ...' that follows the mark
  string(SUBSTRING "${_rest}" ${_at} -1 _rest)
  string(FIND "${_rest}" "\" end time: " _stop)
  string(SUBSTRING "${_rest}" 0 ${_stop} _tail)
  string(FIND "${_tail}" "\n\"" _start REVERSE)
  math(EXPR _start "${_start} + 2")
  string(SUBSTRING "${_tail}" ${_start} -1 _name)
  list(APPEND _names "${_name}")
  set("_why_${_name}" "${_why}")
  string(SUBSTRING "${_rest}" ${_stop} -1 _rest)
endwhile()
if(_names)
  list(SORT _names)
  list(LENGTH _names _n)
  set(_lines "")
  foreach(_name IN LISTS _names)
    string(APPEND _lines "\n  ${_name}: ${_why_${_name}}")
  endforeach()
  message("\nTests skipped (${_n}), each with its reason:${_lines}")
endif()
