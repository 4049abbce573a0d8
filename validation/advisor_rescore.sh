#!/usr/bin/env bash
# Scores a kept run of the advisor's validation again with the model and tables of this checkout,
# without a GPU (docs/validation.md, "Advisor pairs"):
#
#   validation/advisor_rescore.sh RUN [BUILD_DIR [-- PROFILE_OPTIONS...]]
#
# RUN is a result folder of validation/advisor_all.sh (its adv*.counters.csv, the adv*.cubins/
# beside them and pairs.csv), or a tar file of such folders, unpacked into a temporary folder
# (docs/results keeps them as data.tar.xz, which needs xz-utils).  Each counters file is imported
# again (`atomutil-profile --import --csv`, priced by the opcodes of its kept kernel code: the
# listings in adv*.cubins/ need no disassembler) and validation/advisor.py scores them all, as
# advisor_all.sh scored the live run.
# A run made with ADVISOR_NCU kept the pages its imports of the reports read (pages/adv_ncu_N.*.csv,
# or .csv.xz: validation/ncu_pages.sh): they are imported again through ncu_pages.sh, which gives
# them back as ncu would (no ncu), and scored after a line "under ncu:".
# PROFILE_OPTIONS go to every import (e.g. --table FILE).  Prints advisor.py's table and its three
# summary lines, per run where RUN holds several (a line "== NAME" before each); exit status 1 if
# an import or the scoring fails.
set -uo pipefail
run=${1:?usage: advisor_rescore.sh RUN [BUILD_DIR [-- PROFILE_OPTIONS...]]}
build=${2:-build}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")/.." && pwd)
P=$build/bin/atomutil-profile
[ -x "$P" ] || { echo "advisor_rescore: $P is missing (cmake --build $build --target atomutil-profile)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -f "$run" ]; then
    tar -xf "$run" -C "$tmp" 2> /dev/null || { echo "advisor_rescore: $run: not a tar file of a run (tar.xz needs xz)" >&2; exit 1; }
    dir=$tmp
else
    dir=$run
fi
# each run's own pairs.csv, else the first found in RUN, else the one beside RUN
pairs=$(find "$dir" -name pairs.csv | sort | head -n 1)
[ -n "$pairs" ] || pairs=$(dirname "$run")/pairs.csv
[ -f "$pairs" ] || { echo "advisor_rescore: no pairs.csv in or beside $run" >&2; exit 1; }
# one score per folder of counters files or of kept ncu pages (a run; a tar may hold several)
mapfile -t runs < <({
    find "$dir" -name 'adv*.counters.csv' -printf '%h\n'
    find "$dir" -path '*/pages/adv_ncu_*.raw.csv*' -printf '%h\n' | sed 's|/pages$||'
} | sort -u)
[ ${#runs[@]} -gt 0 ] || { echo "advisor_rescore: no adv*.counters.csv or pages/adv_ncu_*.raw.csv in $run" >&2; exit 1; }
all_pairs=$pairs
for r in "${runs[@]}"; do
    [ ${#runs[@]} -gt 1 ] && echo "== ${r#"$dir"/}"
    pairs=$all_pairs
    [ -f "$r/pairs.csv" ] && pairs=$r/pairs.csv
    scored=()
    for c in "$r"/adv*.counters.csv; do
        [ -f "$c" ] || continue
        out=$tmp/$(basename "$c" .counters.csv).csv
        "$P" -q --csv --import "$c" "$@" > "$out" || { echo "advisor_rescore: importing $c failed" >&2; exit 1; }
        scored+=("$out" "$pairs")
    done
    [ ${#scored[@]} -eq 0 ] || python3 "$here/validation/advisor.py" "${scored[@]}" || exit 1
    # the runs under ncu: their kept pages given back by validation/ncu_pages.sh, as ncu would
    scored=()
    for pg in "$r"/pages/adv_ncu_*.raw.csv "$r"/pages/adv_ncu_*.raw.csv.xz; do
        [ -f "$pg" ] || continue
        name=$(basename "$pg")
        name=${name%.xz} name=${name%.raw.csv}
        : > "$tmp/$name.ncu-rep"
        env -u NCU_PAGES_NCU ATOMUTIL_NCU="$here/validation/ncu_pages.sh" NCU_PAGES_DIR="$r/pages" \
            "$P" -q --csv --import "$tmp/$name.ncu-rep" "$@" > "$tmp/$name.csv" ||
            { echo "advisor_rescore: importing the kept pages of $name failed" >&2; exit 1; }
        scored+=("$tmp/$name.csv" "$pairs")
    done
    if [ ${#scored[@]} -gt 0 ]; then
        echo "under ncu:"
        python3 "$here/validation/advisor.py" "${scored[@]}" || exit 1
    fi
    rm -f "$tmp"/adv*.csv
done
