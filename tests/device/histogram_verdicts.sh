#!/bin/sh
# histogram_verdicts.sh - GPU test: profiles examples/histogram live with the installed table and
# checks the verdicts the model must give on Hopper:
#   hist_asread_add on the solid image (all 32 lanes on one bin, ATOMS.ADD: a = 32) is atomic-bound;
#   hist_rotated_popc on the uniform image (ATOMS.POPC.INC, a ~ 3) is not.
# Exit 77 (skipped) without a usable GPU.
#   histogram_verdicts.sh ATOMUTIL_PROFILE HISTOGRAM WORKDIR
prof=$1 hist=$2 work=$3
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
"$prof" -q --csv -o verdicts -- "$hist" --reps 1 || { echo "FAIL: atomutil-profile exited $?"; exit 1; }
# the histogram runs solid then uniform: 4 kernels x 2 launches each per image
launches=$(tail -n +2 verdicts.csv | wc -l)
[ "$launches" -eq 16 ] || { echo "FAIL: $launches launches reported, want 16"; exit 1; }
fail=0
row() { tail -n +2 verdicts.csv | sed -n "$1p"; }
verdict() { row "$1" | grep -o 'atomic-bound\|significant\|not-limiting\|unknown' | head -1; }
for i in 3 4; do # launches 2 and 3: hist_asread_add, solid
    row $i | grep -q '^[0-9]*,[0-9]*,"hist_asread_add' || { echo "FAIL: row $i is not hist_asread_add"; fail=1; }
    v=$(verdict $i)
    [ "$v" = atomic-bound ] || { echo "FAIL: hist_asread_add on the solid image: $v, want atomic-bound"; fail=1; }
done
for i in 13 14; do # launches 12 and 13: hist_rotated_popc, uniform
    row $i | grep -q '^[0-9]*,[0-9]*,"hist_rotated_popc' || { echo "FAIL: row $i is not hist_rotated_popc"; fail=1; }
    v=$(verdict $i)
    [ "$v" != atomic-bound ] && [ "$v" != unknown ] ||
        { echo "FAIL: hist_rotated_popc on the uniform image: $v, want not atomic-bound"; fail=1; }
done
cat verdicts.csv
exit $fail
