#!/usr/bin/env bash
# Overhead of atomutil-profile against Nsight Compute on framework programs and the C examples
# (issue 13): for each target, REPS paired runs of the program alone, under atomutil-profile (the
# default: opcodes on) and under ncu collecting the same counters (--clock-control none
# --cache-control none), in that order, each pair one after the other.  Raw wall times go to
# OUT_DIR/raw-<target>.csv (target,rep,mode,seconds,rc), atomutil's own phase times (--timing) to
# OUT_DIR/timing-<target>-<rep>.txt and the launches measured to the raw file; the table and the
# summary line come from bench/bench_framework.py OUT_DIR.  Each target has its own listing cache
# (docs/opcodes.md: ATOMUTIL_CACHE_DIR=OUT_DIR/cache/TARGET), empty at rep 0, so rep 0 is a cold run
# (the PyTorch targets share cubins) and the later reps find the listings of the kernels' code
# there, as a user's second run does.
# Run on a GPU machine from the repository root after building.  Never changes device settings.
#   bench/bench_framework.sh OUT_DIR [REPS [TARGET...]]
# Targets: sort_unique bincount histc model (PyTorch, skipped without it), histogram launches (C).
# BENCH_FIRST_REP=K keeps reps 0..K-1 of an existing raw file and runs reps K..REPS-1 (for a run
# cut short by a time limit; the target's listing cache is kept if OUT_DIR still holds it).
set -uo pipefail
out=${1:?usage: bench_framework.sh OUT_DIR [REPS [TARGET...]]}
reps=${2:-5}
shift $(($# >= 2 ? 2 : $#))
build=${BUILD_DIR:-build}
prof=$(cd "$build/bin" && pwd)/atomutil-profile
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
metrics=$("$prof" --print-ncu-metrics) || exit 1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sort_unique bincount histc model histogram launches)
have_torch=0
python3 -c 'import torch, torchvision; assert torch.cuda.is_available()' 2>/dev/null && have_torch=1
cmd_of() {
    case $1 in
    sort_unique) echo "python3 $here/examples/python/torch_sort_unique.py" ;;
    bincount) echo "python3 $here/examples/python/torch_bincount.py" ;;
    histc) echo "python3 $here/examples/python/torch_hist.py" ;;
    model) echo "python3 $here/examples/python/torch_model.py 3" ;;
    histogram) echo "$here/$build/bin/histogram --reps 1" ;;
    launches) echo "$here/$build/bin/launches -n 200 -t 4 -s 8" ;;
    *) return 1 ;;
    esac
}
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
    (cd "$here" && git rev-parse HEAD 2>/dev/null)
    python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)' 2>/dev/null
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$out/env.txt" 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wall() { # MODE: seconds and exit status of one run of the rest
    local t0 t1 rc
    t0=$(date +%s.%N)
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v rc=$rc 'BEGIN {printf "%.4f,%d\n", b - a, rc}'
}
for t in "${targets[@]}"; do
    cmd=$(cmd_of "$t") || { echo "bench_framework: unknown target $t" >&2; exit 2; }
    case $t in sort_unique | bincount | histc | model) [ $have_torch = 1 ] || { echo "bench_framework: $t skipped (no PyTorch)" >&2; continue; } ;; esac
    read -r -a argv <<< "$cmd"
    raw=$out/raw-$t.csv
    first=${BENCH_FIRST_REP:-0} # > 0: append reps FIRST..REPS-1 to a raw file cut short (a call's time limit)
    export ATOMUTIL_CACHE_DIR=$out/cache/$t
    if [ "$first" -gt 0 ] && [ -f "$raw" ]; then
        grep -v "^$t,$first," "$raw" | awk -F, -v f="$first" 'NR == 1 || $2 < f' > "$tmp/raw" && cp "$tmp/raw" "$raw"
    else
        first=0
        rm -rf "$ATOMUTIL_CACHE_DIR"
        echo "target,rep,mode,seconds,rc,launches" > "$raw"
    fi
    for ((i = first; i < reps; ++i)); do
        r=$(wall "${argv[@]}"); echo "$t,$i,plain,$r," >> "$raw"
        r=$(wall "$prof" -q --timing -o "$tmp/au" -- "${argv[@]}")
        n=$(grep -c '"sm__cycles_active.avg"' "$tmp/au.counters.csv" 2>/dev/null)
        echo "$t,$i,atomutil,$r,$n" >> "$raw"
        cp "$tmp/err" "$out/timing-$t-$i.txt"
        grep -h " timing: " "$tmp/au.counters.csv" >> "$out/timing-$t-$i.txt" 2>/dev/null
        r=$(wall ncu --csv --clock-control none --cache-control none --metrics "$metrics" "${argv[@]}")
        n=$(grep -c '"sm__cycles_active.avg"' "$tmp/out")
        echo "$t,$i,ncu,$r,$n" >> "$raw"
        rm -rf "$tmp"/au.*
        echo "bench_framework: $t rep $i: $(tail -3 "$raw" | cut -d, -f3,4 | tr '\n' ' ')" >&2
    done
done
python3 "$here/bench/bench_framework.py" "$out"
