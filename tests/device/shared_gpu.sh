#!/bin/sh
# shared_gpu.sh - GPU test: two profiled programs on one GPU at the same time both measure every
# launch.  One process's range profiler holds the GPU's counters (another's Start gets
# CUPTI_ERROR_HARDWARE_BUSY), so the injection libraries take turns through a lock per GPU
# (profile/inject/share.c).  Two atomutil-profile runs of examples/launches (N launches each) on
# the first GPU: each must exit 0, report no "busy:" error and have N launches measured, and the
# counters files must show that the GPU changed hands.  Exit 77 (skipped) without a GPU.
#   shared_gpu.sh ATOMUTIL_PROFILE LAUNCHES WORKDIR
prof=$1 launches=$2 work=$3
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
rm -f a.* b.*
n=600
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
"$prof" -o a --csv -- "$launches" -n $n > a.out 2> a.err &
pa=$!
"$prof" -o b --csv -- "$launches" -n $n > b.out 2> b.err &
pb=$!
fail=0
wait $pa || { echo "FAIL: the first run exited $?"; cat a.err; fail=1; }
wait $pb || { echo "FAIL: the second run exited $?"; cat b.err; fail=1; }
for x in a b; do
    m=$(grep -c '"sm__cycles_active.avg"' $x.counters.csv)
    echo "run $x: $m of $n launches measured"
    [ "$m" -eq $n ] || { echo "FAIL: run $x measured $m launches, want $n"; fail=1; }
    if grep -q 'busy:' $x.err $x.counters.csv; then
        echo "FAIL: run $x reports a busy GPU"; grep -h 'busy:' $x.err | head -3; fail=1
    fi
    grep -h 'sharing:' $x.counters.csv | sed 's/^/  /'
done
# the runs overlap (each takes seconds): they take turns, so each gives the GPU to the other at
# least once (one run waiting for the whole of the other is a failure too)
for x in a b; do
    g=$(sed -n 's/.*sharing: device [0-9]*: [0-9.]* s waiting for its counters, \([0-9]*\) times given.*/\1/p' $x.counters.csv)
    [ "${g:-0}" -ge 1 ] || { echo "FAIL: run $x never gave the GPU to the other"; fail=1; }
done
grep -q 'held by another profiled process: waiting' a.counters.csv b.counters.csv ||
    { echo "FAIL: neither run waited for the other (did they overlap?)"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: two profiled programs on one GPU, every launch measured"
exit $fail
