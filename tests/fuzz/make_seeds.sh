#!/bin/sh
# make_seeds.sh - (re)writes the fuzzers' seed corpus, tests/fuzz/corpus/{table,ncu}/, from the
# repository's own data: the golden table, the good and bad inputs of tests/data, small excerpts
# of the measured tables (a valid sub-grid: n in 1,2,4 and a in 1,2 of three families) and of the
# recorded histogram export, and a counters file as the injection library writes it.
# Seeds stay small (a few KB) so that mutations stay fast; run from anywhere:
#   tests/fuzz/make_seeds.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/tests/fuzz/corpus
rm -rf "$out/table" "$out/ncu"
mkdir -p "$out/table" "$out/ncu"

cp "$root/tests/data/golden-table.csv" "$out/table/golden-table.csv"
for f in "$root"/tests/data/good/table-*.csv "$root"/tests/data/bad/table-*.csv; do
    cp "$f" "$out/table/$(basename "$(dirname "$f")")-$(basename "$f")"
done
# sub-grid excerpt of a measured table: metadata, header, rows of add/cas/popc_inc with n in
# {1,2,4}, a in {1,2} (every pair keeps its c rows, so the grid rule holds)
excerpt_table() {
    awk -F, '/^#/ || /^family,/ { print; next }
             ($1 == "add" || $1 == "cas" || $1 == "popc_inc") && ($2 == 1 || $2 == 2 || $2 == 4) &&
             ($3 == 1 || $3 == 2) { print }' "$1"
}
excerpt_table "$root/tables/nvidia-h200.csv" >"$out/table/nvidia-h200-excerpt.csv"
excerpt_table "$root/tables/nvidia-h100.csv" >"$out/table/nvidia-h100-excerpt.csv"

cp "$root/examples/data/histogram-h200.ncu.csv" "$out/ncu/histogram-h200.ncu.csv"
chmod 644 "$out/ncu/histogram-h200.ncu.csv"
for f in "$root"/tests/data/good/ncu-*.csv "$root"/tests/data/bad/ncu-*.csv; do
    cp "$f" "$out/ncu/$(basename "$(dirname "$f")")-$(basename "$f")"
done
# a --set full report's raw page with its instances, and its executions per opcode (ncu_opcodes.c)
for f in "$root"/tests/data/ncu-full-h200/kmeans-*.ncu.csv; do
    cp "$f" "$out/ncu/full-$(basename "$f")"
done
# the export's ncu banner, its header and its first two launches: a short, complete seed
awk '!/^"/ { if (++other <= 3) print; next } /^"ID"/ || /^"[01]",/ { print }' \
    "$root/examples/data/histogram-h200.ncu.csv" >"$out/ncu/histogram-two-launches.csv"
# the same launches in scaled units (Kinst, Kcycle, usecond), as ncu prints large values
awk -F '","' -v OFS='","' '
    /^"[01]",/ {
        v = $15; sub(/"$/, "", v); gsub(/,/, "", v)
        if ($14 == "inst" || $14 == "cycle") { $14 = "K" $14; $15 = sprintf("%.3f\"", v / 1000) }
        else if ($14 == "ns") { $14 = "usecond"; $15 = sprintf("%.3f\"", v / 1000) }
    }
    { print }' "$out/ncu/histogram-two-launches.csv" >"$out/ncu/histogram-scaled-units.csv"
# a counters file of a live run: header, the library's diagnostics, one launch
{
    grep -m 1 '^"ID"' "$root/examples/data/histogram-h200.ncu.csv"
    echo '==ATOMUTIL== 4242 info: attached to histogram (device 0: NVIDIA H200)'
    grep '^"0",' "$root/examples/data/histogram-h200.ncu.csv"
    echo '==ATOMUTIL== 4242 warning: not measured: 2 CUDA graph launches (graphs run unprofiled)'
} >"$out/ncu/counters-file.csv"
echo "seeds: $(ls "$out/table" | wc -l) tables, $(ls "$out/ncu" | wc -l) exports in $out"
