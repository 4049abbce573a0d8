#!/bin/sh
# fake_target.sh - stands in for a CUDA program in the CPU-only tests of atomutil-profile's live
# mode (ATOMUTIL_TEST_NO_GPU_CHECK=1).  It checks the environment atomutil-profile gives a target,
# then plays the injection library's part: appends the rows of the first launch of EXPORT to the
# counters file (as the library writes them), and ends as MODE says.
# timing: ok, with the injection library's timing lines of two processes (--timing sums them).
# hostile: ok, with a warning naming a kernel whose name holds ESC [31m and an invalid UTF-8 byte.
# pid: ok, printing its process id and leaving a file in the cubin directory (-o with %p).
# none-exit:N: nothing measured, exit status N.
#   fake_target.sh EXPORT MODE     MODE: ok | exit:N | signal:NAME | none | none-exit:N | tool-error | timing |
#                                        hostile | pid
export_file=$1 mode=$2
case $CUDA_INJECTION64_PATH in
"$ATOMUTIL_INJECTION_LIB") ;;
*) echo "fake_target: CUDA_INJECTION64_PATH='$CUDA_INJECTION64_PATH', want '$ATOMUTIL_INJECTION_LIB'" >&2; exit 99 ;;
esac
case $ATOMUTIL_COUNTERS_FILE in
/*) ;;
*) echo "fake_target: ATOMUTIL_COUNTERS_FILE='$ATOMUTIL_COUNTERS_FILE' is not absolute" >&2; exit 99 ;;
esac
# the kernels' cubins go to ATOMUTIL_CUBIN_DIR (default; unset with --no-opcodes), made beforehand
case $ATOMUTIL_CUBIN_DIR in
"") cubin_dir=unset ;;
/*) [ -d "$ATOMUTIL_CUBIN_DIR" ] || { echo "fake_target: $ATOMUTIL_CUBIN_DIR is not a directory" >&2; exit 99; }
    cubin_dir=set ;;
*) echo "fake_target: ATOMUTIL_CUBIN_DIR='$ATOMUTIL_CUBIN_DIR' is not absolute" >&2; exit 99 ;;
esac
head -n 1 "$ATOMUTIL_COUNTERS_FILE" | grep -q '^"ID","Process ID",' ||
    { echo "fake_target: the counters file has no header" >&2; exit 99; }
echo "==ATOMUTIL== $$ info: attached" >> "$ATOMUTIL_COUNTERS_FILE"
case $mode in
none) exit 0 ;;
none-exit:*) exit "${mode#none-exit:}" ;;
tool-error)
    echo "==ATOMUTIL== $$ error: permission: cuptiProfilerGetCounterAvailability: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" >> "$ATOMUTIL_COUNTERS_FILE"
    exit 0 ;;
esac
grep '^"0",' "$export_file" >> "$ATOMUTIL_COUNTERS_FILE"
echo "fake_target: cubin dir $cubin_dir"
echo "fake_target: one launch measured"
case $mode in
ok) exit 0 ;;
pid)
    echo "fake_target: pid $$"
    : > "$ATOMUTIL_CUBIN_DIR/kept"
    exit 0 ;;
timing)
    { echo "==ATOMUTIL== $$ timing: setup context=1 s=0.250 beside=0"
      echo "==ATOMUTIL== $$ timing: launches measured=3 callbacks_s=0.125 module_loads_s=1.500"
      echo "==ATOMUTIL== 7 timing: setup s=0.5 context=2"
      echo "==ATOMUTIL== 7 timing: launches module_loads_s=0.75 measured=4 callbacks_s=0.25 unknown=1"
      echo "==ATOMUTIL== 7 timing: setup context=3 s=soon beside=0"
      echo "==ATOMUTIL== 7 timing: setup context=4 s=0.125 beside=1"
      echo "==ATOMUTIL== 7 timing: setup context=5 s=8 beside=2"
      echo "==ATOMUTIL== 7 timing: setup context=6 beside=0"
      echo "==ATOMUTIL== 7 info: timing: setup 8 s (context 7)"
    } >> "$ATOMUTIL_COUNTERS_FILE"
    exit 0 ;;
hostile)
    printf '==ATOMUTIL== %s warning: no loaded module holds kernel \033[31mevil\377: its opcodes are unknown\n' $$ \
        >> "$ATOMUTIL_COUNTERS_FILE"
    exit 0 ;;
exit:*) exit "${mode#exit:}" ;;
signal:*) kill -s "${mode#signal:}" $$ ;;
esac
exit 98
