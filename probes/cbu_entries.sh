#!/usr/bin/env bash
# Can hardware counters that fit one pass give a CAS loop's entries in a live run (issue 37,
# docs/advisor.md "CAS loops with their entries")?  The compiler brackets each CAS loop with
# BSSY / BSYNC; BSSY runs once per entry.  This runs, under ncu (clocks left alone):
#   src    the SourceCounters section: each SASS instruction's executions (the entries, BSSY's
#          count and every opcode's, which do not depend on timing; the loop bodies' do)
#   b, c, d  three sets of warp-level instruction counters, each one pass on GH100 (so the
#          counters of one set come from the same run of the kernel):
#            b: pipe_cbu, op_branch, pipe_adu, inst_executed
#            c: pipe_cbu, pipe_cbu_pred_on_any, op_branch, pipe_adu
#            d: pipe_cbu, op_branch, op_shared_atom, op_shared_atom_dot_cas (+ atomutil's others)
# on every launch of build/bin/advisor_pairs (2 Mi elements) and the CAS kernels of
# build/bin/unit_bound; then probes/cbu_entries.py tests which opcodes each counter counts and
# whether a combination of one set's counters equals the entries.
#
#   probes/cbu_entries.sh OUT_DIR [BUILD_DIR]      (needs a GPU, ncu)
set -uo pipefail
out=${1:?usage: cbu_entries.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cmake --build "$build" --target advisor_pairs unit_bound > /dev/null || exit 1
p=smsp__inst_executed
B=$p.sum,${p}_pipe_cbu.sum,${p}_op_branch.sum,${p}_pipe_adu.sum
C=${p}_pipe_cbu.sum,${p}_pipe_cbu_pred_on_any.sum,${p}_op_branch.sum,${p}_pipe_adu.sum
D=${p}_pipe_cbu.sum,${p}_op_branch.sum,${p}_op_shared_atom.sum,${p}_op_shared_atom_dot_cas.sum
D=$D,sm__cycles_active.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
run() { # run NAME NCU_ARGS...: both programs into OUT/NAME_{adv,ub}.ncu-rep
    local name=$1
    shift
    ncu --clock-control none "$@" -k regex:'^adv_' -o "$out/${name}_adv" -f \
        "$build/bin/advisor_pairs" --elements 2097152 --reps 1 > "$out/${name}_adv.log" 2>&1 || return 1
    ncu --clock-control none "$@" -o "$out/${name}_ub" -f \
        "$build/bin/unit_bound" --filter cas --jobs 256 --reps 1 > "$out/${name}_ub.log" 2>&1 || return 1
}
run src --section SourceCounters || exit 1
run b --metrics "$B" || exit 1
run c --metrics "$C" || exit 1
run d --metrics "$D" || exit 1
for prog in adv ub; do
    ncu --import "$out/src_$prog.ncu-rep" --page source --csv --print-source sass > "$out/src_$prog.csv" || exit 1
    for s in b c d; do
        ncu --import "$out/${s}_$prog.ncu-rep" --page raw --csv > "$out/${s}_$prog.csv" || exit 1
    done
done
python3 "$here/probes/cbu_entries.py" "$out"
