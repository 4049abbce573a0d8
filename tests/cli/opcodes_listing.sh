#!/bin/sh
# opcodes_listing.sh - the listing path of --opcodes on the CPU: a live run's BASE.cubins/ holds a
# real cubin (tests/device/persm_targets.cu, compiled with nvcc -cubin) and no listings yet; a
# stand-in nvdisasm ($CUDA_HOME/bin/nvdisasm) records its arguments and prints a listing of the
# two kernels.  Checks that atomutil-profile finds the kernels' symbol indices in the cubin's ELF
# symbol table (as readelf does), runs nvdisasm once (-gi -fun I,J), splits its output into one
# listing per kernel, prices the launches by their opcodes, and lists nothing on a second run.
#   opcodes_listing.sh ATOMUTIL_PROFILE CUBIN COUNTERS WORKDIR
prof=$1 cubin=$2 counters=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/bin" "$work/run.cubins" || exit 1
crc=$(sed -n 's/^==ATOMUTIL== [0-9]* code: \([0-9]*\) .*/\1/p' "$counters" | head -n 1)
[ -n "$crc" ] || fail "no code line in $counters"
cp "$counters" "$work/run.counters.csv" && cp "$cubin" "$work/run.cubins/$crc.cubin" || exit 1
cat > "$work/bin/nvdisasm" <<'FAKE'
#!/bin/sh
echo "$@" >> "$(dirname "$0")/../nvdisasm.args"
cat <<'LISTING'
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
	.section	.text._Z6unevenPjS_,"ax",@progbits
.text._Z6unevenPjS_:
        /*0210*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
	//## File "/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp", line 112 inlined at "/src/persm_targets.cu", line 41
	//## File "/src/persm_targets.cu", line 41
        /*0220*/                   ATOMS.ADD R2, [R4], R11 ;
        /*0240*/                   ATOMS.ADD R3, [R4], R11 ;
	.section	.text._Z3mixPj,"ax",@progbits
.text._Z3mixPj:
        /*01a0*/                   ATOMS.ADD R5, [R2], R7 ;
        /*01e0*/                   ATOMS.CAS R6, [R3], R8, R9 ;
LISTING
FAKE
chmod +x "$work/bin/nvdisasm"
sym() { readelf -sW "$cubin" | awk -v n="$1" '$NF == n && $4 == "FUNC" {sub(":", "", $1); print $1}'; }
su=$(sym _Z6unevenPjS_) sm=$(sym _Z3mixPj)
[ -n "$su" ] && [ -n "$sm" ] || fail "readelf finds no symbol for the kernels in $cubin"
cd "$work" || exit 1
# a listing cache of this test's own (tests/cli/opcodes_cache.sh tests the cache)
export ATOMUTIL_CACHE_DIR="$work/cache"
CUDA_HOME=$work "$prof" --opcodes --import run.counters.csv --json > run.json 2> run.err ||
    fail "atomutil-profile exited $?: $(cat run.err)"
[ -s run.err ] && fail "stderr: $(cat run.err)"
args=$(cat nvdisasm.args)
case $args in
"-gi -fun $su,$sm run.cubins/$crc.cubin" | "-gi -fun $sm,$su run.cubins/$crc.cubin" | \
"-gi -fun $su,$sm $work/run.cubins/$crc.cubin" | "-gi -fun $sm,$su $work/run.cubins/$crc.cubin") ;;
*) fail "nvdisasm called as '$args', want one call '-gi -fun $su,$sm <cubin>'" ;;
esac
[ -f "run.cubins/$crc-$su.sass" ] && [ -f "run.cubins/$crc-$sm.sass" ] || fail "no per-kernel listings: $(ls run.cubins)"
grep -q ATOMS.CAS "run.cubins/$crc-$su.sass" && fail "uneven's listing holds mix's code"
grep -q '"classes": "add 50%, cas 50%"' run.json || fail "mix not priced as add 50%, cas 50%"
grep -q '"source": "persm_targets.cu:41"' run.json || fail "uneven's source line is not the user's"
CUDA_HOME=$work "$prof" --opcodes --import run.counters.csv --json > run2.json 2> run.err || fail "second run"
[ "$(wc -l < nvdisasm.args)" = 1 ] || fail "the second run listed again"
cmp -s run.json run2.json || fail "the second report differs"
# a graph launch (docs/live-profiling.md): launch 1 (mix) renamed as a graph row, and a "graph:"
# line naming both kernels: the row is priced by the union of their instructions (uneven's two
# ATOMS.ADD and mix's ATOMS.ADD and ATOMS.CAS), with no "no kernel code" warning
sed 's/"mix(unsigned int\*)"/"graph 0 (2 kernel nodes)"/' run.counters.csv > graph.counters.csv
cp -r run.cubins graph.cubins || exit 1
pid=$(sed -n 's/^"1","\([0-9]*\)",.*"graph 0 (2 kernel nodes)".*/\1/p' graph.counters.csv | head -n 1)
[ -n "$pid" ] || fail "no launch 1 in the counters file"
echo "==ATOMUTIL== $pid graph: 1 _Z6unevenPjS_ _Z3mixPj" >> graph.counters.csv
CUDA_HOME=$work "$prof" --opcodes --import graph.counters.csv --json > graph.json 2> graph.err ||
    fail "graph: atomutil-profile exited $?: $(cat graph.err)"
grep -q "no kernel code" graph.err && fail "graph row without code: $(cat graph.err)"
"${PYTHON3:-python3}" - graph.json <<'PY' || fail "graph row not priced by its kernels' opcodes"
import json, sys
rep = json.load(open(sys.argv[1]))
row = [l for l in rep["launches"] if l["kernel"] == "graph 0 (2 kernel nodes)"][0]
classes = row.get("opcodes", {}).get("classes", "")
flags = row.get("flags", "")
assert "opcodes" in flags and "cas" in classes and "add" in classes, (flags, classes)
PY
echo "ok: symbols $su and $sm listed in one nvdisasm run, split per kernel, priced by opcode; a graph row by its kernels'"
