#!/usr/bin/env bash
# calibrate_family.sh - measures one new family (or a few) into an existing table and checks it
# against ground truth, on the GPU at hand (docs/calibration.md, "Adding families to an existing
# table"), in one command from the repository root:
#
#   validation/calibrate_family.sh FAMILIES BASE_TABLE [VALIDATION_FILTER]
#
#   FAMILIES           comma-separated registry families (atomutil-calibrate --list), e.g. generic
#   BASE_TABLE         the table of this GPU model to extend, e.g. tables/nvidia-h100.csv (only read)
#   VALIDATION_FILTER  validation points and unit_bound cases whose name contains it (default: the
#                      first family's name); "-" leaves the validation out
#
# Writes under $OUT (default BUILD_DIR/calibrate-family-out), never into the repository's files:
#   env.txt, steps.txt, build.log       GPU, commit, each step's status and wall time
#   table.csv, calibrate.log            BASE_TABLE with FAMILIES measured now (--merge): the file to
#                                       commit in BASE_TABLE's place
#   family_costs.txt                    S(n_max, a, 0) and S/a per pass for FAMILIES and add
#   sass_check.csv, calibrate.sass      the calibration kernels' code checked (analyze.py sass; the
#                                       rows of FAMILIES matter, the others were checked before)
#   unit_bound.csv, vtime.csv           the unit's rate and the ground truth of the selected points
#   vop.counters.csv, vop.csv, vop_points.csv, vop.cubins.tar.gz (the kernels' listings, or their
#                                       cubins where none was listed) the same points profiled live
#   validation_tables.md, validation_points.csv, validate.log   validation/validate.py with table.csv
#                                       (last line: the summary)
#   base/validate.log, ...              the same report priced with BASE_TABLE (before the family)
#   opcodes/sm_XX.atomics               the atomic opcodes of every kernel for this GPU's
#                                       architecture (validation/arch_opcodes.sh, needs nvdisasm)
# BUILD_DIR (default build-dev) is configured with -DATOMUTIL_CUDA_ARCHS=native if it is not yet.
# About 4 minutes on an H100 for one family, most of it the build.  Each step has a time limit;
# the script goes on after a failed step and exits 1 if any failed.
set -uo pipefail
fams=${1:?usage: calibrate_family.sh FAMILIES BASE_TABLE [VALIDATION_FILTER]}
base=${2:?usage: calibrate_family.sh FAMILIES BASE_TABLE [VALIDATION_FILTER]}
filter=${3:-${fams%%,*}}
build=${BUILD_DIR:-build-dev}
out=${OUT:-$build/calibrate-family-out}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
[ -r "$base" ] || { echo "calibrate_family.sh: cannot read $base" >&2; exit 2; }
failed=0
run() { # run NAME SECONDS COMMAND...: a step with a time limit, its status and wall time in steps.txt
    local name=$1 limit=$2 t0=$SECONDS rc
    shift 2
    echo "== $name" >&2
    timeout "$limit" "$@"
    rc=$?
    printf '%-16s rc %d  %d s\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$out/steps.txt" >&2
    [ "$rc" -eq 0 ] || failed=1
    return "$rc"
}
: > "$out/steps.txt"
{
    nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
    git -C "$here" rev-parse HEAD && git -C "$here" status --short | head -20
    date -u +%Y-%m-%dT%H:%M:%SZ
    echo "families=$fams base=$base filter=$filter"
} > "$out/env.txt" 2>&1

targets=(atomutil-calibrate atomutil-profile validation unit_bound)
[ -f "$build/CMakeCache.txt" ] ||
    run configure 300 cmake -S "$here" -B "$build" -DATOMUTIL_CUDA_ARCHS=native -DATOMUTIL_ENABLE_TESTS=OFF \
        > "$out/build.log" 2>&1 || exit 1
run build 420 cmake --build "$build" -j --target "${targets[@]}" >> "$out/build.log" 2>&1 || exit 1
B=$build/bin

# 1. the families into a copy of the table (the base is only read)
run calibrate 120 "$B/atomutil-calibrate" --families "$fams" --merge "$base" -o "$out/table.csv" \
    > "$out/calibrate.log" 2>&1
# the calibration kernels' code: each family's own opcode, nothing queued before its first job,
# instructions per job (calibrate/tools/analyze.py sass; docs/calibration.md, "Checks on the GPU")
command -v cuobjdump > /dev/null || PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
run sass-check 60 bash -c "cuobjdump -sass '$B/atomutil-calibrate' > '$out/calibrate.sass' &&
    python3 '$here/calibrate/tools/analyze.py' sass '$out/calibrate.sass' > '$out/sass_check.csv'"
# the saturated cost per pass: flat in a means every wavefront costs the same
run costs 30 python3 - "$out/table.csv" "$fams,add" > "$out/family_costs.txt" << 'EOF'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
for fam in dict.fromkeys(sys.argv[2].split(",")):
    mine = [r for r in rows if r["family"] == fam and r["c"] == "0"]
    if not mine:
        print(f"{fam}: not in the table"); continue
    nmax = max(int(r["n"]) for r in mine)
    print(f"{fam} at n = {nmax}, c = 0:  a  S  S/a")
    for r in sorted((r for r in mine if int(r["n"]) == nmax), key=lambda r: int(r["a"])):
        a, s = int(r["a"]), float(r["service_cycles"])
        print(f"  {a:2d} {s:8.3f} {s / a:6.3f}")
EOF

# 2. ground truth of the selected points, then the same points profiled live (validation/validation_all.sh)
if [ "$filter" != "-" ]; then
    run unit_bound 120 bash -c "'$B/unit_bound' --filter '$filter' > '$out/unit_bound.csv' 2> '$out/unit_bound.log'"
    run vtime 240 "$B/validation" -f "$filter" -o "$out/vtime.csv" 2> "$out/vtime.log"
    run vop 240 "$B/atomutil-profile" -q --opcodes --table "$out/table.csv" -o "$out/vop" --csv -- \
        "$B/validation" --mode profile -f "$filter" -o "$out/vop_points.csv" > "$out/vop.log" 2>&1
    run validate 120 python3 "$here/validation/validate.py" "$out" --profile "$B/atomutil-profile" \
        --table "$out/table.csv" --out "$out" > "$out/validate.log" 2>&1
    mkdir -p "$out/base"
    run validate-base 120 python3 "$here/validation/validate.py" "$out" --profile "$B/atomutil-profile" \
        --table "$base" --out "$out/base" > "$out/base/validate.log" 2>&1
    tail -n 1 "$out/validate.log" "$out/base/validate.log"
    # the kernels' listings as docs/results keeps them (validate.py reads the archive); the cubins
    # themselves are the build's, kept only where no kernel was listed (nvdisasm missing?)
    (cd "$out" && shopt -s nullglob && files=(vop.cubins/*.sass) && { [ ${#files[@]} -gt 0 ] ||
        files=(vop.cubins/*.cubin); } && tar -czf vop.cubins.tar.gz "${files[@]}") && rm -rf "$out/vop.cubins"
fi

# 3. the opcodes the kernels compile to on this architecture (for tests/chips: chips.arch_opcodes)
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
run opcodes 240 "$here/validation/arch_opcodes.sh" "$out/opcodes" "$arch" > "$out/opcodes.log" 2>&1
grep -h 'ATOM\.E\.' "$out/opcodes/sm_$arch.atomics" 2> /dev/null | sort -k3 | head -60

cat "$out/steps.txt"
exit $failed
