#!/usr/bin/env bash
# arch_opcodes.sh - which atomic SASS opcodes each family's code becomes on every architecture the
# CUDA toolkit compiles for (issue 23: opcodes per architecture).  Compiles the calibration kernels
# (one per family), unit_bound, the validation operations and the examples with `nvcc -cubin` for
# each sm_XX and disassembles them with nvdisasm (the GPU machine has it; CI does not), keeping
# only the atomic instructions (ATOM*, RED*) with their kernel:
#   OUT_DIR/sm_XX.atomics     "FILE KERNEL OPCODE COUNT" lines
#   OUT_DIR/compile.log       what did not compile for an architecture (e.g. clusters before sm_90)
#   OUT_DIR/summary.csv       opcode,arch,count over all files
#   validation/arch_opcodes.sh OUT_DIR [ARCH...]        (default: every arch nvcc --list-gpu-code gives)
set -u
out=${1:?usage: arch_opcodes.sh OUT_DIR [ARCH...]}
shift
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
archs=("$@")
[ ${#archs[@]} -gt 0 ] || mapfile -t archs < <(nvcc --list-gpu-code | sed -n 's/^sm_//p')
files=("$src"/calibrate/kernels/*.cu "$src"/calibrate/tools/unit_bound.cu "$src"/validation/validation.cu
       "$src"/examples/histogram/histogram.cu "$src"/examples/kmeans/kmeans.cu
       "$src"/examples/cluster_histogram/cluster_histogram.cu "$src"/examples/launches/launches.cu)
work=$(mktemp -d)
: >"$out/compile.log"
one() { # one ARCH FILE
    local a=$1 f=$2 b
    b=$(basename "$f" .cu)
    mkdir -p "$work/$a"
    if ! nvcc -cubin -arch=sm_"$a" -O3 -std=c++17 -I "$src/calibrate" -I "$src/model/include" -I "$src/examples/common" \
        -o "$work/$a/$b.cubin" "$f" >"$work/$a/$b.log" 2>&1; then
        echo "sm_$a $b: does not compile: $(grep -m1 -i error "$work/$a/$b.log")" >>"$out/compile.log"
        return
    fi
    nvdisasm -c "$work/$a/$b.cubin" | awk -v file="$b" '
        /^[ \t]*\.section[ \t]+\.text\./ { k = $2; sub(/^\.text\./, "", k); sub(/,.*/, "", k) }
        { for (i = 1; i <= NF; i++) if ($i ~ /^(ATOM|RED)[A-Z]*(\.[A-Z0-9_]+)*$/) { n[k " " $i]++; break } }
        END { for (x in n) print file, x, n[x] }' >>"$work/$a/atomics"
}
export -f one
export src out work
for a in "${archs[@]}"; do for f in "${files[@]}"; do echo "$a $f"; done; done |
    xargs -P "$(nproc)" -n 2 bash -c 'one "$0" "$1"'
echo "opcode,arch,count" >"$out/summary.csv"
for a in "${archs[@]}"; do
    sort "$work/$a/atomics" 2>/dev/null >"$out/sm_$a.atomics"
    awk -v a="sm_$a" '{ n[$3] += $4 } END { for (o in n) print o "," a "," n[o] }' "$out/sm_$a.atomics" | sort >>"$out/summary.csv"
done
rm -rf "$work"
echo "architectures: ${archs[*]}; opcodes: $(cut -d, -f1 "$out/summary.csv" | sort -u | grep -vc opcode)"
