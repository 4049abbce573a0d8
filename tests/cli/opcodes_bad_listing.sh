#!/bin/sh
# opcodes_bad_listing.sh - kernel code that cannot be used, on the CPU: the recorded persm run
# (tests/data/opcodes: uneven's listing 2029369467-12.sass, mix's 2029369467-11.sass) with mix's
# listing replaced.  Only regular files of at most 256 MiB are read (docs/opcodes.md), and a kernel
# with jobs whose listing has no atomics of it gets a warning that says why, and a report line that
# says it was priced by --family; uneven is priced by its opcodes throughout.
#   opcodes_bad_listing.sh ATOMUTIL_PROFILE DATA_DIR WORKDIR
prof=$1 data=$2 work=$3
fail() { echo "FAIL ($case): $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
export ATOMUTIL_CACHE_DIR=off CUDA_HOME=$work # no cache, no nvdisasm: only the files given

# run CASE: a fresh run.counters.csv + run.cubins/ with uneven's listing, then what CASE puts in
# mix's place; the report in $case.out, stderr in $case.err
setup() {
    case=$1
    rm -rf run.cubins && mkdir run.cubins && cp "$data/persm-h200.counters.csv" run.counters.csv &&
        cp "$data/persm-h200.cubins/2029369467-12.sass" run.cubins/ || exit 1
}
run() {
    timeout 30 "$prof" --import run.counters.csv > "$case.out" 2> "$case.err"
    st=$?
    [ $st = 0 ] || fail "exit status $st: $(cat "$case.err")"
    grep -q '^   0  uneven  *add 100%$' "$case.out" || fail "uneven not priced by its opcodes: $(cat "$case.out")"
}
# mix: priced as add, flagged, and the report line says so (not "no shared-atomic jobs")
mix_by_family() {
    grep -q "^   1  mix .* atomic-bound unknown_opcode$" "$case.out" || fail "mix's row: $(grep ' mix ' "$case.out")"
    grep -q "^   1  mix  *no ATOMS in its listing: priced as 'add'$" "$case.out" ||
        fail "mix's opcode line: $(grep ' mix ' "$case.out")"
    grep -q "no shared-atomic jobs" "$case.out" && fail "says 'no shared-atomic jobs' for a kernel with jobs"
}
one_warning() { [ "$(wc -l < "$case.err")" = 1 ] || fail "want one warning: $(cat "$case.err")"; }
not_held="atomutil-profile: warning: mix(unsigned int*): the listing run.cubins/2029369467-*.sass does not hold kernel _Z3mixPj, though the counters show 8192 shared-atomic jobs per SM (listing unreadable or not this kernel's"

# a link to /dev/zero: not read (it was read up to 2 GB), named in the warning
setup dev-zero
ln -s /dev/zero run.cubins/2029369467-11.sass || exit 1
run
mix_by_family
one_warning
grep -qF "$not_held: run.cubins/2029369467-11.sass: not a regular file): priced as 'add'" "$case.err" ||
    fail "warning: $(cat "$case.err")"

# a sparse file over the limit: not read
setup too-large
truncate -s 300M run.cubins/2029369467-11.sass || exit 1
run
mix_by_family
one_warning
grep -qF "$not_held: run.cubins/2029369467-11.sass: larger than 256 MiB): priced as 'add'" "$case.err" ||
    fail "warning: $(cat "$case.err")"

# garbage: read, holds no kernel
setup garbage
printf 'not a listing\n\001\002\003 ATOMS\n' > run.cubins/2029369467-11.sass
run
mix_by_family
one_warning
grep -qF "$not_held): priced as 'add'" "$case.err" || fail "warning: $(cat "$case.err")"

# mix's section without atomics (they sit in a called function): said so
setup no-atomics
printf '\t.section\t.text._Z3mixPj,"ax",@progbits\n.text._Z3mixPj:\n        /*0000*/                   CALL.REL.NOINC 0x100 ;\n        /*0010*/                   EXIT ;\n' \
    > run.cubins/2029369467-11.sass
run
mix_by_family
one_warning
grep -qF "atomutil-profile: warning: mix(unsigned int*): the listing run.cubins/2029369467-*.sass has no shared-atomic instruction of kernel _Z3mixPj, though the counters show 8192 jobs per SM (atomics in a called, not inlined function?): priced as 'add'" "$case.err" ||
    fail "warning: $(cat "$case.err")"

# both listings links to /dev/zero: each kernel's warning names the file, not a missing nvdisasm
setup all-unreadable
rm run.cubins/2029369467-12.sass && ln -s /dev/zero run.cubins/2029369467-11.sass &&
    ln -s /dev/zero run.cubins/2029369467-12.sass || exit 1
timeout 30 "$prof" --import run.counters.csv > "$case.out" 2> "$case.err" || fail "exit status $?: $(cat "$case.err")"
grep -q "^   0  uneven  *no ATOMS in its listing: priced as 'add'$" "$case.out" ||
    fail "uneven's opcode line: $(grep ' uneven ' "$case.out")"
mix_by_family
[ "$(wc -l < "$case.err")" = 2 ] || fail "want two warnings: $(cat "$case.err")"
grep -q "warning: uneven(unsigned int\*, unsigned int\*): .* does not hold kernel _Z6unevenPjS_, .*: not a regular file): priced as 'add'$" "$case.err" ||
    fail "uneven's warning: $(cat "$case.err")"
grep -q "nvdisasm" "$case.err" && fail "blames nvdisasm: $(cat "$case.err")"

# -q: the same report, no warning
case=quiet
timeout 30 "$prof" --import run.counters.csv -q > quiet.out 2> quiet.err || fail "exit status $?"
[ -s quiet.err ] && fail "stderr with -q: $(cat quiet.err)"
cmp -s quiet.out all-unreadable.out || fail "-q changes the report"

# the cubin a named pipe without a writer (opening it to read would wait for ever): not opened;
# the kept listings price both kernels
setup cubin-fifo
cp "$data/persm-h200.cubins/2029369467-11.sass" run.cubins/ && mkfifo run.cubins/2029369467.cubin || exit 1
run
grep -q '^   1  mix  *add 50%, cas 50%$' "$case.out" || fail "mix not priced by its listing: $(cat "$case.out")"
[ -s "$case.err" ] && fail "stderr: $(cat "$case.err")"

echo "ok: listings that are links to /dev/zero, too large, garbage or without atomics are said; a pipe for a cubin is skipped"
