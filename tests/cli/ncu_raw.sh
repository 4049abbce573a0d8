#!/bin/sh
# ncu_raw.sh - Nsight Compute's raw page (`ncu --import REPORT --csv --page raw`) read by
# atomutil-profile, and a report (.ncu-rep) read through ncu, on the recorded pages of
# tests/data/ncu-raw-h100 (README.md there).  The ncu of the report cases is a stand-in that
# checks its arguments, logs its runs and prints what $FAKE_NCU_OUT names (exits $FAKE_NCU_STATUS).
#   ncu_raw.sh ATOMUTIL_PROFILE DATA_DIR TABLE WORKDIR CASE
#   CASE: same-report    the raw page and the details page of the same launches give the same
#                        report: CSV byte for byte, the table (--wide) and JSON but for their
#                        source line; 16 launches, each read with its 5 passes (flag replayed)
#         report         a report (its first bytes a report's) with ncu on PATH: the raw page's
#                        report, byte for byte; ncu run once, as ncu --import FILE --csv --page raw
#         report-env     the same with $ATOMUTIL_NCU (a failing ncu on PATH), named other than
#                        .ncu-rep; and a file named .ncu-rep of other first bytes, sent to ncu
#         csv-no-ncu     CSV exports are read without ncu, also where a failing ncu is on PATH
#         no-ncu         no ncu on PATH: exit 1, one line naming the file, ncu and the command
#                        that exports the CSV by hand; the same for an $ATOMUTIL_NCU not there
#         ncu-fails      ncu exits 1: its ==ERROR== line; ncu writes no CSV: said so
#         lacks-metrics  a report without atomutil's metrics: exit 5, the missing metrics and the
#                        ncu options that collect them
#         bad-line       ncu's CSV malformed: exit 3, its line named as a line of ncu's output
#   With DATA_DIR tests/data/ncu-full-h200 (reports made with --set full and the section):
#         full-set       each launch priced by the executions per opcode that ncu exports in a
#                        second run (--print-metric-instances details): U equal to the rule's
#                        (atomutil__util_pct, its result in the report) within 0.001, flag
#                        opcodes; the histogram's and k-means' (CAS loops) launches
#         full-export    the raw page exported with those instances prices the same, without ncu
#         full-no-opcodes --no-opcodes: one ncu run, no opcode classes
#         full-ops-fail  the second ncu run fails: a warning and --family pricing; with --opcodes,
#                        exit 1 and one line
#         newer-report   ncu 2025.3.1's stderr for a report of a newer format version (its version
#                        field raised by one): exit 1, one line with ncu's cause and ours
#         other-gpu      a report of a GPU without a table: exit 4, one line naming the GPU and where
#                        tables were looked for
#   With DATA_DIR tests/data/ncu-cas-entries-h200 (a report made with the source counters):
#         cas-entries    the CAS loops' entries read from the source page (a third ncu run) price
#                        the loops' pass cures; without the page, or with one of other launches,
#                        none
#   With DATA_DIR tests/data/ncu-torch-bincount-h200 (PyTorch's bincount, a kernel nobody here wrote):
#         framework-entries  the source page names the kernel otherwise than the raw page
#                        (namespaces, template arguments): paired by function name, its CAS loop's
#                        524,288 entries price the pass cures; a page of another function, or one
#                        whose loop cannot be read, gives none, and a warning says why (not with -q)
#   With DATA_DIR tests/data/ncu-entry-loads-h200 (the k-means pair with the DRAM counter):
#         entry-loads    each CAS-loop entry's loads at the table's latencies stay after a pass
#                        cure: the one_pass point within 10 % of the conflict-free run at 2 Mi
#                        (loads from L2) and 35 % at 16 Mi (from DRAM); with the table's latency
#                        lines removed, over 60 % too fast at both
prof=$1 data=$2 table=$3 work=$4 case=$5
raw=$data/histogram-raw.ncu.csv details=$data/histogram-details.ncu.csv
fail() {
    echo "FAIL ($case): $*"
    exit 1
}
rm -rf "$work" && mkdir -p "$work/bin" "$work/empty" || exit 1
unset ATOMUTIL_NCU FAKE_NCU_OUT FAKE_NCU_STATUS FAKE_NCU_ERR FAKE_NCU_OPS FAKE_NCU_OPS_STATUS FAKE_NCU_SRC
path0=$PATH

# run_env: NAME=VALUE words added to atomutil-profile's environment (PATH, ATOMUTIL_NCU and the
# stand-in's FAKE_NCU_*) for the next report or refused; the functions' own tools keep the PATH
run_env=

# report NAME FILE OPTION...: atomutil-profile --import FILE into $work/NAME (stderr NAME.err),
# which must succeed with nothing on stderr
report() {
    name=$1 file=$2
    shift 2
    # shellcheck disable=SC2086 # run_env and the wrapper are words
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$file" --table "$table" -q "$@" > "$work/$name" 2> "$work/$name.err"
    st=$?
    [ "$st" -eq 0 ] || fail "$file $*: exit status $st: $(head -n 1 "$work/$name.err")"
    [ -s "$work/$name.err" ] && fail "$file $*: stderr: $(head -n 1 "$work/$name.err")"
    return 0
}

# refused STATUS FILE TEXT...: atomutil-profile --import FILE exits STATUS with nothing on stdout
# and one line on stderr that holds each TEXT (fixed strings)
refused() {
    want=$1 file=$2
    shift 2
    # shellcheck disable=SC2086
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$file" --table "$table" --csv > "$work/out" 2> "$work/err"
    st=$?
    [ "$st" -eq "$want" ] || fail "$file: exit status $st, want $want: $(head -n 1 "$work/err")"
    [ -s "$work/out" ] && fail "$file: stdout: $(head -n 1 "$work/out")"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$file: $(wc -l < "$work/err") lines on stderr, want 1: $(cat "$work/err")"
    for t; do
        grep -qF -- "$t" "$work/err" || fail "$file: stderr lacks '$t': $(cat "$work/err")"
    done
    return 0
}

# without_source FILE: FILE without the report's source line (table and JSON)
without_source() {
    grep -v -e '^source: ' -e '^  "source": ' "$1"
}

# the stand-in ncu (also as $work/other/ncu-2025, off PATH) and one that always fails
cat > "$work/bin/ncu" <<'FAKE'
#!/bin/sh
log=$(dirname "$0")/../ncu.log
echo "$*" >> "$log"
if [ $# -eq 7 ] && [ "$1 $3 $4 $5 $6 $7" = "--import --csv --page source --print-source sass" ] && [ -f "$2" ]; then
    [ -n "$FAKE_NCU_SRC" ] || { echo "==ERROR== stand-in ncu: no source page" >&2; exit 1; }
    cat "$FAKE_NCU_SRC"
    exit 0
fi
if [ $# -lt 5 ] || [ "$1" != --import ] || [ ! -f "$2" ] || [ "$3" != --csv ] || [ "$4" != --page ] || [ "$5" != raw ]; then
    echo "==ERROR== stand-in ncu: unexpected arguments: $*" >&2
    exit 2
fi
if [ $# -eq 9 ] && [ "$6 $7 $8 $9" = "--print-metric-instances details --metrics sass__inst_executed_per_opcode_with_modifier_all" ]; then
    [ -n "$FAKE_NCU_OPS" ] && cat "$FAKE_NCU_OPS"
    exit "${FAKE_NCU_OPS_STATUS:-0}"
elif [ $# -ne 5 ]; then
    echo "==ERROR== stand-in ncu: unexpected arguments: $*" >&2
    exit 2
fi
[ -n "$FAKE_NCU_OUT" ] && cat "$FAKE_NCU_OUT"
[ -n "$FAKE_NCU_ERR" ] && cat "$FAKE_NCU_ERR" >&2
exit "${FAKE_NCU_STATUS:-0}"
FAKE
mkdir -p "$work/other" "$work/failbin" || exit 1
cp "$work/bin/ncu" "$work/other/ncu-2025" || exit 1
printf '#!/bin/sh\necho run >> "%s"\necho "==ERROR== this ncu must not run" >&2\nexit 1\n' "$work/fail.log" > "$work/failbin/ncu"
chmod +x "$work/bin/ncu" "$work/other/ncu-2025" "$work/failbin/ncu" || exit 1
# a report: its first bytes as a report's ("NVR", a NUL, the header's size), then anything
rep=$work/hist.ncu-rep
printf 'NVR\000\020\000\000\000not a real report' > "$rep" || exit 1

# ncu_runs N: the stand-in ran N times (since the last call), each as ncu --import $rep ...
ncu_runs() {
    n=$(cat "$work/ncu.log" 2> /dev/null | wc -l)
    [ "$n" -eq "$1" ] || fail "ncu ran $n times, want $1: $(cat "$work/ncu.log" 2> /dev/null)"
    rm -f "$work/ncu.log"
}

case $case in
same-report)
    report raw.csv "$raw" --csv
    report details.csv "$details" --csv
    [ "$(wc -l < "$work/raw.csv")" -eq 17 ] || fail "raw page: $(wc -l < "$work/raw.csv") CSV lines, want 17"
    [ "$(grep -c ',"replayed",' "$work/raw.csv")" -eq 16 ] || fail "raw page: not every launch flagged replayed"
    cmp "$work/raw.csv" "$work/details.csv" || fail "the CSV reports differ: diff $work/raw.csv $work/details.csv"
    for fmt in wide json; do
        report "raw.$fmt" "$raw" "--$fmt"
        report "details.$fmt" "$details" "--$fmt"
        grep -qF "$raw" "$work/raw.$fmt" || fail "--$fmt: no source line naming $raw"
        without_source "$work/raw.$fmt" > "$work/raw.$fmt.cut"
        without_source "$work/details.$fmt" > "$work/details.$fmt.cut"
        cmp "$work/raw.$fmt.cut" "$work/details.$fmt.cut" || fail "the --$fmt reports differ beyond their source line"
    done
    ;;
report)
    report raw.csv "$raw" --csv
    run_env="FAKE_NCU_OUT=$raw PATH=$work/bin:$path0"
    report rep.csv "$rep" --csv
    ncu_runs 1
    cmp "$work/raw.csv" "$work/rep.csv" || fail "the report's CSV differs from its raw page's"
    run_env="FAKE_NCU_OUT=$raw PATH=$work/bin:$path0"
    report rep.json "$rep" --json
    grep -qF "\"source\": \"$rep\"" "$work/rep.json" || fail "the JSON's source is not the report"
    ncu_runs 1
    ;;
report-env)
    report raw.csv "$raw" --csv
    cp "$rep" "$work/hist.bin" || exit 1
    run_env="FAKE_NCU_OUT=$raw ATOMUTIL_NCU=$work/other/ncu-2025 PATH=$work/failbin:$path0"
    report rep.csv "$work/hist.bin" --csv
    ncu_runs 1
    [ -s "$work/fail.log" ] && fail "the ncu on PATH ran, not \$ATOMUTIL_NCU's"
    cmp "$work/raw.csv" "$work/rep.csv" || fail "the report's CSV differs from its raw page's"
    printf 'PK\003\004 another format' > "$work/other.ncu-rep"
    run_env="FAKE_NCU_OUT=$raw PATH=$work/bin:$path0"
    report rep2.csv "$work/other.ncu-rep" --csv
    ncu_runs 1
    cmp "$work/raw.csv" "$work/rep2.csv" || fail "a .ncu-rep of other first bytes: not read through ncu"
    ;;
csv-no-ncu)
    run_env="PATH=$work/failbin:$path0"
    report raw.csv "$raw" --csv
    run_env="PATH=$work/failbin:$path0"
    report details.csv "$details" --csv
    [ -s "$work/fail.log" ] && fail "ncu ran for a CSV export"
    ;;
no-ncu)
    run_env="PATH=$work/empty"
    refused 1 "$rep" \
        "atomutil-profile: $rep: an Nsight Compute report: reading it needs ncu, Nsight Compute's command line (no ncu on PATH)" \
        "ncu --import $rep --csv --page raw > $rep.csv"
    run_env="ATOMUTIL_NCU=$work/no-such-ncu"
    refused 1 "$rep" "atomutil-profile: $rep: " \
        "(ATOMUTIL_NCU=$work/no-such-ncu: No such file or directory)" "ncu --import $rep --csv --page raw > $rep.csv"
    ;;
ncu-fails)
    run_env="PATH=$work/failbin:$path0"
    refused 1 "$rep" \
        "atomutil-profile: $rep: ncu --import $rep --csv --page raw failed (exit status 1): ==ERROR== this ncu must not run (a damaged report, or one made by a newer Nsight Compute than this ncu: ncu --version)"
    run_env="FAKE_NCU_OUT=/dev/null PATH=$work/bin:$path0"
    refused 1 "$rep" \
        "atomutil-profile: $rep: ncu --import $rep --csv --page raw wrote no CSV table (no kernel launch in the report?)"
    ncu_runs 1
    ;;
lacks-metrics)
    # the raw page without the columns of atomutil's metrics (those of --set basic would do the same)
    awk -F '","' '
        NR == 1 { for (i = 1; i <= NF; ++i) keep[i] = i <= 11 || $i ~ /^(device__|launch__|gpu__time)/ }
        { s = ""; n = 0
          for (i = 1; i <= NF; ++i) if (keep[i]) s = s (n++ ? "\",\"" : "") $i
          if (!keep[NF]) s = s "\""
          print s }' "$raw" > "$work/basic.csv"
    run_env="FAKE_NCU_OUT=$work/basic.csv PATH=$work/bin:$path0"
    refused 5 "$rep" \
        "atomutil-profile: $rep: no launch has all required metrics (smsp__inst_executed_op_shared_atom.sum," \
        "): add --metrics smsp__inst_executed_op_shared_atom.sum," \
        " to the ncu command that made it (none of ncu's sets holds them all), or collect every metric atomutil reads with ncu --section AtomicUnit (docs/nsight-compute.md)"
    ncu_runs 1
    ;;
other-gpu)
    # another name and compute capability: no table of the same architecture either
    awk -F '","' -v OFS='","' '
        NR == 1 { for (i = 1; i <= NF; ++i) { if ($i == "device__attribute_compute_capability_major") ma = i
                                              if ($i == "device__attribute_compute_capability_minor") mi = i } }
        # column 11: "CC"
        NR > 2 { $ma = "5"; $mi = "2"; $11 = "5.2" }
        { gsub(/NVIDIA H100 80GB HBM3/, "NVIDIA Z100"); print }' "$raw" > "$work/z100.csv"
    # shellcheck disable=SC2086
    env FAKE_NCU_OUT="$work/z100.csv" PATH="$work/bin:$path0" ATOMUTIL_TABLES_DIR="$(dirname "$table")" \
        ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$rep" --csv > "$work/out" 2> "$work/err"
    st=$?
    [ "$st" -eq 4 ] || fail "exit status $st, want 4: $(head -n 1 "$work/err")"
    [ -s "$work/out" ] && fail "stdout: $(head -n 1 "$work/out")"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$(wc -l < "$work/err") lines on stderr, want 1: $(cat "$work/err")"
    grep -qF "atomutil-profile: no service-time table for NVIDIA Z100 (compute capability 5.2) in $(dirname "$table")" \
        "$work/err" || fail "stderr: $(cat "$work/err")"
    ncu_runs 1
    ;;
bad-line)
    sed '3s/"26501.507576"/"2x"/' "$raw" > "$work/bad.csv"
    run_env="FAKE_NCU_OUT=$work/bad.csv PATH=$work/bin:$path0"
    refused 3 "$rep" \
        "atomutil-profile: $rep:3: value '2x' of sm__cycles_active.avg is not a finite number (a line of ncu --import's --page raw CSV of the report)"
    ;;
full-set)
    for k in histogram kmeans; do
        run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv PATH=$work/bin:$path0"
        report "$k.csv" "$rep" --csv
        # k-means' CAS loop: a third run for the source page (this report has none: no entries)
        ncu_runs $([ $k = kmeans ] && echo 3 || echo 2)
        # the rule's U (its atomutil__util_pct in the raw page) against the report's, launch by launch
        python3 - "$data/$k-raw.ncu.csv" "$work/$k.csv" <<'PY' || fail "$k: $(cat "$work/py.err" 2> /dev/null)"
import csv, sys
raw = list(csv.reader(open(sys.argv[1])))
rule = {r[0]: float(r[raw[0].index("atomutil__util_pct")]) for r in raw[2:]}
rep = list(csv.DictReader(open(sys.argv[2])))
assert len(rep) == len(rule) > 0, "%d launches, the rule %d" % (len(rep), len(rule))
for r in rep:
    d = abs(float(r["util_pct"]) - rule[r["launch_id"]])
    assert d <= 0.001, "launch %s: U %s, the rule's %s" % (r["launch_id"], r["util_pct"], rule[r["launch_id"]])
    assert "opcodes" in r["flags"].split(",") and r["opcode_classes"], "launch %s not priced by opcodes" % r["launch_id"]
PY
    done
    grep -q '"cast_spin 98%, popc_inc 2%"' "$work/kmeans.csv" || fail "k-means: not its CAS loop's class"
    # no listing, so no pc: the JSON's is null, the table names the counts
    run_env="FAKE_NCU_OUT=$data/kmeans-raw.ncu.csv FAKE_NCU_OPS=$data/kmeans-opcodes.ncu.csv PATH=$work/bin:$path0"
    report kmeans.json "$rep" --json
    grep -q '"function": "", "pc": null, "opcode": "ATOMS.CAST.SPIN"' "$work/kmeans.json" || fail "JSON: no null pc"
    run_env="FAKE_NCU_OUT=$data/kmeans-raw.ncu.csv FAKE_NCU_OPS=$data/kmeans-opcodes.ncu.csv PATH=$work/bin:$path0"
    report kmeans.txt "$rep"
    grep -Eq '^ +ATOMS\.CAST\.SPIN +cast_spin +executions counted per opcode$' "$work/kmeans.txt" ||
        fail "table: the opcode's line: $(grep -F ATOMS.CAST "$work/kmeans.txt")"
    ncu_runs 6
    # --compare prices each report as --import does: k-means' U is its CAS loop's (about 80 %), not add's (53 %)
    run_env="FAKE_NCU_OUT=$data/kmeans-raw.ncu.csv FAKE_NCU_OPS=$data/kmeans-opcodes.ncu.csv PATH=$work/bin:$path0"
    # shellcheck disable=SC2086
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --compare "$rep" "$rep" --table "$table" --csv > "$work/cmp.csv" \
        2> "$work/cmp.err" || fail "--compare: $(head -n 1 "$work/cmp.err")"
    [ -s "$work/cmp.err" ] && fail "--compare: stderr: $(head -n 1 "$work/cmp.err")"
    awk -F, 'NR == 2 { exit !($12 > 80 && $12 < 80.4 && $13 == $12) }' "$work/cmp.csv" ||
        fail "--compare: U $(sed -n 2p "$work/cmp.csv" | cut -d, -f12,13), want the rule's 80.0-80.4"
    ncu_runs 6
    ;;
full-export)
    for k in histogram kmeans; do
        run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv PATH=$work/bin:$path0"
        report "$k.csv" "$rep" --csv
        run_env="PATH=$work/failbin:$path0"
        report "$k-export.csv" "$data/$k-raw-instances.ncu.csv" --csv
        [ -s "$work/fail.log" ] && fail "ncu ran for a CSV export"
        cut -d, -f3- "$work/$k.csv" > "$work/a" && cut -d, -f3- "$work/$k-export.csv" > "$work/b" || exit 1
        cmp "$work/a" "$work/b" || fail "$k: the export with instances prices otherwise than the report"
    done
    ;;
full-no-opcodes)
    run_env="FAKE_NCU_OUT=$data/kmeans-raw.ncu.csv FAKE_NCU_OPS=$data/kmeans-opcodes.ncu.csv PATH=$work/bin:$path0"
    report k.csv "$rep" --csv --no-opcodes
    ncu_runs 1
    grep -q '"cast_spin' "$work/k.csv" && fail "--no-opcodes: opcode classes in the report"
    ;;
full-ops-fail)
    run_env="FAKE_NCU_OUT=$data/kmeans-raw.ncu.csv FAKE_NCU_OPS_STATUS=1 PATH=$work/bin:$path0"
    # shellcheck disable=SC2086
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$rep" --table "$table" --csv > "$work/k.csv" 2> "$work/err"
    st=$?
    [ "$st" -eq 0 ] || fail "exit status $st: $(head -n 1 "$work/err")"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "$(wc -l < "$work/err") lines on stderr, want 1: $(cat "$work/err")"
    grep -qF "atomutil-profile: warning: $rep: ncu --import $rep --csv --page raw --print-metric-instances details --metrics sass__inst_executed_per_opcode_with_modifier_all failed (exit status 1)" "$work/err" ||
        fail "stderr: $(cat "$work/err")"
    grep -qF "(its jobs are priced as --family)" "$work/err" || fail "stderr: $(cat "$work/err")"
    ncu_runs 2
    # shellcheck disable=SC2086
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$rep" --table "$table" --opcodes --csv > "$work/out" 2> "$work/err"
    st=$?
    [ "$st" -eq 1 ] || fail "--opcodes: exit status $st, want 1: $(head -n 1 "$work/err")"
    [ -s "$work/out" ] && fail "--opcodes: stdout: $(head -n 1 "$work/out")"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "--opcodes: $(wc -l < "$work/err") lines on stderr: $(cat "$work/err")"
    grep -qF "atomutil-profile: $rep: ncu --import $rep --csv --page raw --print-metric-instances details" "$work/err" ||
        fail "--opcodes: stderr: $(cat "$work/err")"
    ;;
cas-entries)
    # the k-means pair of validation/advisor under ncu with its source counters: the CAS loops'
    # entries from the source page (a third ncu run) price the pass cures of the loops
    k=kmeans-pair
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv FAKE_NCU_SRC=$data/$k-source.ncu.csv PATH=$work/bin:$path0"
    report k.csv "$rep" --csv
    ncu_runs 3
    python3 - "$work/k.csv" 2> "$work/py.err" <<'PY' || fail "$(tail -n 1 "$work/py.err")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, "%d launches, want 4" % len(rows)
for r in rows:
    attempts = float(r["cas_jobs"])
    assert r["loop_entries"] == "131072", "launch %s: loop_entries %s" % (r["launch_id"], r["loop_entries"])
    busy, one = float(r["busy_cycles"]), r["whatif_one_pass_busy_cycles"]
    per_entry = attempts / (2 * 65536)  # 65,536 entries per loop, two loops: the source page
    if per_entry < 1.15:
        # the variant (1.1 attempts per entry): the point keeps them all (0.15 more an attempt for
        # other warps' races), so nothing to buy
        assert not one and not r["whatif_aggregate_busy_cycles"], "launch %s: one_pass priced" % r["launch_id"]
        continue
    assert one, "launch %s: no one_pass price" % r["launch_id"]
    # one attempt per entry and 0.15 more for the races, each at its price now
    want = busy * 1.15 / per_entry
    assert abs(float(one) - want) <= 0.01 * want, "launch %s: one_pass busy %s, want %.1f" % (r["launch_id"], one, want)
    assert float(r["whatif_one_pass_time_lo_ns"]) <= float(r["whatif_one_pass_time_ns"]) <= float(r["whatif_one_pass_time_hi_ns"])
    assert r["whatif_aggregate_busy_cycles"], "launch %s: no aggregate price" % r["launch_id"]
    # hashing helps the baseline (95 attempts per entry), not the variant (1.1: fewer than 3.53)
    assert bool(r["whatif_hashed_busy_cycles"]) == (attempts > 3.53 * 2 * 65536), "launch %s: hashed" % r["launch_id"]
    assert not r["whatif_replicate_4_busy_cycles"], "launch %s: replicate_4 priced for a CAS loop" % r["launch_id"]
PY
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv FAKE_NCU_SRC=$data/$k-source.ncu.csv PATH=$work/bin:$path0"
    report k.txt "$rep"
    grep -Eq '^    CAS loops: 95\.3 attempts per entry \(entries: the report.s source counters\)$' "$work/k.txt" ||
        fail "table: $(grep -F 'CAS loops' "$work/k.txt")"
    # a report made before the section had the L2 and DRAM counters: the entries' loads unpriced, said so
    grep -q '^    CAS loops: no L2 or DRAM counter, so the entries. loads are not priced' "$work/k.txt" ||
        fail "table: $(grep -F 'CAS loops' "$work/k.txt")"
    grep -Eq 'saves .*: one_pass, aggregate(, native)?$' "$work/k.txt" || fail "table: no one_pass line"
    ncu_runs 3
    # no source page (ncu fails on it): the run goes on, the loops get no pass cure
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv PATH=$work/bin:$path0"
    report n.csv "$rep" --csv
    ncu_runs 3
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(not rows or any(r["loop_entries"] or r["whatif_one_pass_busy_cycles"] for r in rows))' "$work/n.csv" ||
        fail "without the source page: entries or a one_pass price"
    # a source page that does not pair with the launches (the last launch's page left out): no
    # entries rather than entries of other launches
    awk '/^"Kernel Name"/ { ++n } n < 4' "$data/$k-source.ncu.csv" > "$work/short.csv"
    [ "$(grep -c '^"Kernel Name"' "$work/short.csv")" -eq 3 ] || fail "short page: not 3 launches"
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv FAKE_NCU_SRC=$work/short.csv PATH=$work/bin:$path0"
    report s.csv "$rep" --csv
    cmp "$work/n.csv" "$work/s.csv" || fail "a source page of other launches gave entries"
    ;;
framework-entries)
    k=bincount-one
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv FAKE_NCU_SRC=$data/$k-source.ncu.csv PATH=$work/bin:$path0"
    report k.csv "$rep" --csv
    ncu_runs 3
    python3 - "$work/k.csv" 2> "$work/py.err" <<'PY' || fail "$(tail -n 1 "$work/py.err")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, "%d launches, want 1" % len(rows)
r = rows[0]
assert r["kernel"].startswith("void kernelHistogram1D<long, long, long, 1, 2,"), "kernel %s" % r["kernel"][:60]
assert r["loop_entries"] == "524288", "loop_entries %r, want 524288 (the source page)" % r["loop_entries"]
for cure in ("one_pass", "hashed", "aggregate"):
    assert r["whatif_%s_busy_cycles" % cure], "no %s price" % cure
PY
    # the same page under another function's name: no entries rather than another kernel's
    sed '1s/kernelHistogram1D</kernelHistogram2D</' "$data/$k-source.ncu.csv" > "$work/other.csv"
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv FAKE_NCU_SRC=$work/other.csv PATH=$work/bin:$path0"
    report o.csv "$rep" --csv
    python3 -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
sys.exit(bool(r["loop_entries"] or r["whatif_one_pass_busy_cycles"]))' "$work/o.csv" ||
        fail "a page of another function gave entries"
    # without -q that is said, in one warning line; the report is the same
    # shellcheck disable=SC2086
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$rep" --table "$table" --csv > "$work/w.csv" 2> "$work/w.err" ||
        fail "unpaired page without -q: exit status $?"
    cmp -s "$work/o.csv" "$work/w.csv" || fail "unpaired page: the report differs without -q"
    [ "$(cat "$work/w.err")" = "atomutil-profile: warning: $rep: its source page's 1 launches do not pair with its 1 by function name, so its CAS loops get no entries and no pass cure" ] ||
        fail "unpaired page: stderr: $(cat "$work/w.err")"
    # a page whose loop cannot be read (the count of the instruction before its head is not a
    # number): no entries, said so
    sed 's/^\("0x7f9d377c99c0",".*"\),"524288"$/\1,"n\/a"/' "$data/$k-source.ncu.csv" > "$work/cut.csv"
    grep -q '^"0x7f9d377c99c0",.*,"n/a"$' "$work/cut.csv" || fail "cut page: the count not replaced"
    run_env="FAKE_NCU_OUT=$data/$k-raw.ncu.csv FAKE_NCU_OPS=$data/$k-opcodes.ncu.csv FAKE_NCU_SRC=$work/cut.csv PATH=$work/bin:$path0"
    # shellcheck disable=SC2086
    env $run_env ${ATOMUTIL_TEST_WRAPPER:-} "$prof" --import "$rep" --table "$table" --csv > "$work/c.csv" 2> "$work/c.err" ||
        fail "cut page: exit status $?"
    cmp -s "$work/o.csv" "$work/c.csv" || fail "cut page: entries or prices"
    [ "$(cat "$work/c.err")" = "atomutil-profile: warning: $rep: its source page gives no CAS-loop entries for 1 launch (the first: ID 0), whose loops then get no pass cure" ] ||
        fail "cut page: stderr: $(cat "$work/c.err")"
    ;;
newer-report)
    run_env="FAKE_NCU_ERR=$data/newer-report.stderr FAKE_NCU_STATUS=1 PATH=$work/bin:$path0"
    refused 1 "$rep" \
        "atomutil-profile: $rep: ncu --import $rep --csv --page raw failed (exit status 1): ==ERROR== The report file version is not compatible with this version of Nsight Compute. (a damaged report, or one made by a newer Nsight Compute than this ncu: ncu --version)"
    ncu_runs 1
    ;;
entry-loads)
    # the timed launches (IDs 1 and 3: after a warm-up each): the baseline's one_pass point against
    # the conflict-free run's time; the same with a table without its load latencies
    grep -v -e '^# l2_hit_latency_cycles:' -e '^# dram_latency_cycles:' "$table" > "$work/nolat.csv" || fail "no table"
    cmp -s "$table" "$work/nolat.csv" && fail "$table has no load latencies"
    for size in 2mi 16mi; do
        run_env="FAKE_NCU_OUT=$data/kmeans-$size-raw.ncu.csv FAKE_NCU_OPS=$data/kmeans-$size-opcodes.ncu.csv FAKE_NCU_SRC=$data/kmeans-$size-source.ncu.csv PATH=$work/bin:$path0"
        report "$size.csv" "$rep" --csv
        report "$size.txt" "$rep"
        table0=$table
        table=$work/nolat.csv
        report "$size-nolat.csv" "$rep" --csv
        report "$size-nolat.txt" "$rep"
        table=$table0
        ncu_runs 12
        python3 - "$work/$size.csv" "$work/$size-nolat.csv" "$size" 2> "$work/py.err" <<'PY' || fail "$(tail -n 1 "$work/py.err")"
import csv, sys
def point(path):
    rows = list(csv.DictReader(open(path)))
    assert len(rows) == 4, "%s: %d launches, want 4" % (path, len(rows))
    base, var = rows[1], rows[3]
    assert base["kernel"].startswith("adv_kmeans_one_lane(") and var["kernel"].startswith("adv_kmeans_one_lane__v(")
    assert base["dram_read_bytes"] and base["l2_hit_sectors"] and base["loop_entries"], "counters missing"
    return float(base["whatif_one_pass_time_ns"]) / float(var["duration_ns"]) - 1
err, err0 = point(sys.argv[1]), point(sys.argv[2])
tol = 0.10 if sys.argv[3] == "2mi" else 0.35
assert abs(err) <= tol, "%s: one_pass point %+.1f %% off the conflict-free run (want within %.0f %%)" % (sys.argv[3], 100 * err, 100 * tol)
assert err0 < -0.60, "%s: without the latencies %+.1f %% (want over 60 %% too fast)" % (sys.argv[3], 100 * err0)
print("%s: %+.1f %% with the load latencies, %+.1f %% without" % (sys.argv[3], 100 * err, 100 * err0))
PY
        want=$([ $size = 2mi ] && echo 215 || echo 664)
        grep -Eq "^    CAS loops: each entry waits about $want cycles for its loads, which a cure leaves\$" "$work/$size.txt" ||
            fail "$size: $(grep -F 'CAS loops' "$work/$size.txt")"
        grep -q 'each entry waits' "$work/$size-nolat.csv" && fail "$size: a CSV with the wait line"
        grep -q '^    CAS loops: the table has no load latencies (atomutil-calibrate --latency --merge), so the$' \
            "$work/$size-nolat.txt" || fail "$size, no latencies: $(grep -F 'CAS loops' "$work/$size-nolat.txt")"
    done
    ;;
*)
    echo "ncu_raw.sh: unknown case '$case'" >&2
    exit 2
    ;;
esac
echo "ok ($case)"
