#!/usr/bin/env bash
# sanitize_inject.sh - the injection library under ThreadSanitizer and AddressSanitizer, on a GPU
# machine, against the hostile targets (several threads and streams, two processes, a CUDA graph,
# clusters): docs/reliability.md, "Sanitizers on the GPU".
#
#   tools/sanitize_inject.sh [-o OUT_DIR] [-n RUNS] [-s tsan,asan]
#
# Builds build-tsan (-DATOMUTIL_TSAN=ON) and build-asan (-DATOMUTIL_SANITIZE=ON) beside the source
# tree, then profiles each target RUNS times with the sanitizer's runtime preloaded into the target
# only (atomutil-profile -- env LD_PRELOAD=... TARGET: the CUDA driver loads the instrumented
# injection library into it).  Reports go to OUT_DIR/<san>.<pid>; the last lines are one per
# sanitizer (M: runs in which the instrumented library measured launches; a run in which the
# target died before that proves nothing):
#   tsan: runs R measured M reports N (races in the injection library K)
#   asan: runs R measured M reports N
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=sanitize-out runs=3 sans=tsan,asan
while getopts "o:n:s:h" opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) runs=$OPTARG ;;
    s) sans=$OPTARG ;;
    h) sed -n '2,15p' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd)
nvidia-smi -L >/dev/null 2>&1 || { echo "sanitize_inject.sh: no GPU" >&2; exit 77; }
jobs=$(nproc 2>/dev/null || echo 4)
cc=${CC:-cc}

build() { # build DIR CMAKE_OPTION
    cmake -S "$src" -B "$src/$1" "$2" -DATOMUTIL_ENABLE_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        >"$out/$1.configure.log" 2>&1 &&
        cmake --build "$src/$1" -j"$jobs" --target atomutil-profile atomutil_inject launches cluster_histogram \
            >"$out/$1.build.log" 2>&1
}

# CUPTI loads libnvperf_host.so with RTLD_DEEPBIND, which both sanitizer runtimes refuse (the
# process dies before its first launch is measured): the shim drops the flag; the library
# directory on LD_LIBRARY_PATH finds it from the shim too
$cc -shared -fPIC -o "$out/no_deepbind.so" "$src/tools/no_deepbind.c" -ldl || exit 1
cupti_dir=$(dirname "$(find /usr/local/cuda/ -name 'libnvperf_host.so' 2>/dev/null | head -n 1)")
export LD_LIBRARY_PATH=$cupti_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

summary=()
for san in ${sans//,/ }; do
    case $san in
    tsan) dir=build-tsan opt=-DATOMUTIL_TSAN=ON
          lib="$out/no_deepbind.so:$($cc -print-file-name=libtsan.so)"
          env_opts="TSAN_OPTIONS=halt_on_error=0:report_signal_unsafe=0:second_deadlock_stack=1:log_path=$out/tsan" ;;
    asan) dir=build-asan opt=-DATOMUTIL_SANITIZE=ON
          # the shim before ASan's runtime: ASan's dlopen interceptor refuses the flag itself, so
          # the shim's dlopen must be found first (ASan's link-order check is turned off for it)
          lib="$out/no_deepbind.so:$($cc -print-file-name=libasan.so)"
          # atomutil-profile itself is instrumented too and calls cuInit
          export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:verify_asan_link_order=0
          # the CUDA driver maps memory in ASan's shadow gap
          env_opts="ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:verify_asan_link_order=0:halt_on_error=1:log_path=$out/asan" ;;
    *) echo "sanitize_inject.sh: unknown sanitizer $san" >&2; exit 2 ;;
    esac
    build "$dir" "$opt" || { echo "sanitize_inject.sh: $dir did not build ($out/$dir.build.log)"; summary+=("$san: build failed"); continue; }
    b=$src/$dir/bin
    wrap="env LD_PRELOAD=$lib $env_opts"
    n=0 measured=0
    for t in "t4s8|$b/launches -n 128 -t 4 -s 8" "t8s4|$b/launches -n 128 -t 8 -s 4" \
             "graph|$b/launches -n 64 --graph" "cluster|$b/cluster_histogram -i uniform -c all -r 2 -p 1048576" \
             "procs2|bash -c '$wrap $b/launches -n 64 -t 2 -s 2 & $wrap $b/launches -n 64 -t 4 -s 4 & wait'"; do
        name=${t%%|*} cmd=${t#*|}
        for ((i = 0; i < runs; i++)); do
            w=$out/work-$san-$name-$i
            mkdir -p "$w"
            if [ "$name" = procs2 ]; then
                (cd "$w" && eval "\"$b/atomutil-profile\" -q -o run --csv -- $cmd" >run.out 2>run.err)
            else
                (cd "$w" && eval "\"$b/atomutil-profile\" -q -o run --csv -- $wrap $cmd" >run.out 2>run.err)
            fi
            st=$?
            # a run counts only if the instrumented library measured launches in it
            m=$(grep -c '"sm__cycles_active.avg"' "$w/run.counters.csv" 2>/dev/null)
            echo "$san $name run $i: exit $st, launches measured ${m:-0}" | tee -a "$out/$san.runs"
            n=$((n + 1))
            [ "${m:-0}" -gt 0 ] && measured=$((measured + 1))
        done
    done
    reports=$(cat "$out/$san".* 2>/dev/null | grep -c -E '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)')
    if [ "$san" = tsan ]; then
        ours=$(cat "$out/$san".[0-9]* 2>/dev/null | grep -c -E 'SUMMARY: ThreadSanitizer: .*(inject|range|share|cubins|graphs|sass)\.c')
        summary+=("tsan: runs $n measured $measured reports $reports (races in the injection library $ours)")
    else
        summary+=("asan: runs $n measured $measured reports $reports")
    fi
done
for s in "${summary[@]}"; do echo "$s"; done
