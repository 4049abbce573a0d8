#!/usr/bin/env bash
# What opcode pricing (the default, docs/opcodes.md) costs: wall time of the histogram example
# (5 runs) and of examples/python/torch_hist.py (3 runs, skipped without PyTorch), each alone,
# under atomutil-profile --no-opcodes and under atomutil-profile, interleaved; prints the medians,
# and the time of one nvdisasm -g of the histogram's whole cubin.  The last profiled runs' counters
# files, cubins and reports stay in OUT_DIR (default: a temporary directory, removed).  Run on a GPU
# machine from the repository root after building.  Never changes device settings.
#   bench/bench_opcodes.sh [BUILD_DIR] [OUT_DIR]
set -uo pipefail
build=${1:-build}
prof=$build/bin/atomutil-profile
out=${2:-}
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { # seconds of one run of "$@", output discarded
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || { echo "bench_opcodes: failed: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}'
}
series() { # NAME RUNS BASE COMMAND...
    local name=$1 runs=$2 base=$3
    shift 3
    local a=() q=() p=()
    for ((i = 0; i < runs; ++i)); do
        a+=("$(wall "$@")")
        q+=("$(wall "$prof" -q --no-opcodes -o "$out/$base-no" -- "$@")")
        p+=("$(wall "$prof" -q -o "$out/$base" -- "$@")")
    done
    local ma mq mp
    ma=$(printf '%s\n' "${a[@]}" | median)
    mq=$(printf '%s\n' "${q[@]}" | median)
    mp=$(printf '%s\n' "${p[@]}" | median)
    echo "| $name ($runs runs) | $ma | $mq | $mp | $(awk -v p="$mp" -v q="$mq" 'BEGIN {printf "%.2f", p - q}') |"
    echo "  runs: alone ${a[*]}; --no-opcodes ${q[*]}; default ${p[*]}" >&2
}
echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); median wall seconds"
echo
echo "| program | alone | atomutil-profile --no-opcodes | atomutil-profile | added by opcodes |"
echo "|---|---|---|---|---|"
series "build/bin/histogram" 5 histogram "$build/bin/histogram"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
    series "python3 examples/python/torch_hist.py" 3 torch python3 examples/python/torch_hist.py
else
    echo "| torch_hist.py | skipped: no PyTorch with CUDA | | | |"
fi
cubin=$(ls "$out"/histogram.cubins/*.cubin 2> /dev/null | head -n 1)
nvd=$(command -v nvdisasm || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvdisasm")
if [ -n "$cubin" ] && [ -x "$nvd" ]; then
    echo
    echo "one nvdisasm -g of the histogram's whole cubin ($(stat -c %s "$cubin") bytes): $(wall "$nvd" -g "$cubin") s"
fi
