# make_big_inputs.cmake - writes the inputs with a megabyte-long field (or a header too wide) for
# the bad-input suite (and two accepted ones) into OUT_DIR, at test time, so that the repository
# stays small.
# They are copies of tests/data/golden-table.csv and of the first launch of the recorded export
# examples/data/histogram-h200.ncu.csv with one field blown up to 1 MiB.
#   cmake -DSOURCE_DIR=<repository root> -DOUT_DIR=<dir> -P make_big_inputs.cmake
# Line numbers the manifests expect: table rows 12..23 as in the golden table, a row appended
# there is line 24; export: lines 1-4 program output, 5 header, 6-13 the rows of launch 0 (device
# name, SM count, duration, wavefronts, active cycles, warps, jobs, CAS jobs).
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR OR NOT OUT_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repository root> -DOUT_DIR=<dir> -P make_big_inputs.cmake")
endif()
file(MAKE_DIRECTORY "${OUT_DIR}")

set(mib 1048576)
string(REPEAT "x" ${mib} big_x)
string(REPEAT "a" ${mib} big_a)
string(REPEAT "1" ${mib} big_1)

# ---------------------------------------------------------------- tables
file(READ "${SOURCE_DIR}/tests/data/golden-table.csv" table)
file(WRITE "${OUT_DIR}/table-megabyte-family.csv" "${table}${big_a},1,1,0,8,8,8,0\n")
file(WRITE "${OUT_DIR}/table-megabyte-n.csv" "${table}add,${big_1},1,0,8,8,8,0\n")
string(REGEX REPLACE "\n# note: [^\n]*" "\n# note: ${big_x}" t "${table}")
file(WRITE "${OUT_DIR}/table-megabyte-note.csv" "${t}")
string(REPLACE "# atomutil-table v1\n" "# atomutil-table v1\n# ${big_x}: 1\n" t "${table}")
file(WRITE "${OUT_DIR}/table-megabyte-key.csv" "${t}")

# ---------------------------------------------------------------- exports
file(STRINGS "${SOURCE_DIR}/examples/data/histogram-h200.ncu.csv" ex LIMIT_COUNT 200)
# layout: the first 3 lines of program output and the one just before the header, the header,
# the 8 rows of launch 0
set(h -1)
set(i 0)
foreach(l IN LISTS ex)
  if(l MATCHES "^\"ID\",")
    set(h ${i})
    break()
  endif()
  math(EXPR i "${i} + 1")
endforeach()
list(LENGTH ex n)
math(EXPR last "${h} + 8")
if(h LESS 4 OR NOT last LESS n)
  message(FATAL_ERROR "examples/data/histogram-h200.ncu.csv: no header after 4 lines of program output, or fewer than 8 rows after it")
endif()
math(EXPR before "${h} - 1")
set(app "")
foreach(i 0 1 2 ${before})
  list(GET ex ${i} l)
  string(APPEND app "${l}\n")
endforeach()
list(GET ex ${h} header)
if(NOT header MATCHES "^\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",")
  message(FATAL_ERROR "examples/data/histogram-h200.ncu.csv: Kernel Name is not the 5th column")
endif()
set(rows "")
set(metrics device__attribute_display_name device__attribute_multiprocessor_count
    gpu__time_duration.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
    sm__cycles_active.avg sm__warps_active.avg.per_cycle_active
    smsp__inst_executed_op_shared_atom.sum smsp__inst_executed_op_shared_atom_dot_cas.sum)
foreach(k RANGE 0 7)
  math(EXPR i "${h} + 1 + ${k}")
  list(GET ex ${i} l)
  list(GET metrics ${k} m)
  if(NOT l MATCHES "^\"0\",.*,\"${m}\",\"[^\"]*\",\"[^\"]*\"$")
    message(FATAL_ERROR "examples/data/histogram-h200.ncu.csv: row ${k} after the header is not launch 0's ${m}")
  endif()
  list(APPEND rows "${l}")
endforeach()

# join(out row0 ... row7): the launch's rows, newline-terminated
function(join out)
  set(s "")
  foreach(r IN LISTS ARGN)
    string(APPEND s "${r}\n")
  endforeach()
  set(${out} "${s}" PARENT_SCOPE)
endfunction()

# one row replaced: index (0..7), regex, replacement
function(write_export name index regex replacement)
  set(r ${rows})
  list(GET r ${index} row)
  string(REGEX REPLACE "${regex}" "${replacement}" row "${row}")
  list(REMOVE_AT r ${index})
  list(INSERT r ${index} "${row}")
  join(body ${r})
  file(WRITE "${OUT_DIR}/${name}" "${app}${header}\n${body}")
endfunction()

# the value of smsp__inst_executed_op_shared_atom.sum (line 12)
write_export(ncu-megabyte-value.csv 6 "\"[^\"]*\"$" "\"${big_1}\"")
# the ID of the first row (line 6)
write_export(ncu-megabyte-id.csv 0 "^\"0\"" "\"${big_1}\"")
# the unit of sm__cycles_active.avg (line 10)
write_export(ncu-megabyte-unit.csv 4 "\"cycle\"" "\"${big_x}\"")

# a header of 65551 columns, more than the reader keeps (line 5)
string(REPEAT ",\"x__filler.sum\"" 65536 wide)
join(body ${rows})
file(WRITE "${OUT_DIR}/ncu-header-65551-columns.csv" "${app}${header}${wide}\n${body}")

# accepted: a 1 MiB kernel name in every row of the launch, a 1 MiB line of program output
set(r "")
foreach(row IN LISTS rows)
  # the 5th field, Kernel Name
  string(REGEX REPLACE "^(\"[^\"]*\",\"[^\"]*\",\"[^\"]*\",\"[^\"]*\",)\"[^\"]*\""
         "\\1\"void hist_${big_a}(int)\"" row "${row}")
  list(APPEND r "${row}")
endforeach()
join(body ${r})
file(WRITE "${OUT_DIR}/ncu-megabyte-kernel-name.csv" "${app}${header}\n${body}")
join(body ${rows})
file(WRITE "${OUT_DIR}/ncu-megabyte-output-line.csv" "${app}${big_x}\n${header}\n${body}")
