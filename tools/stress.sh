#!/usr/bin/env bash
# stress.sh - the hostile targets run many times under atomutil-profile on one GPU machine, each
# run compared with a plain run of the same target (docs/reliability.md, "Stress").
#
#   tools/stress.sh [-b BIN_DIR] [-o OUT_DIR] [-r ROUNDS] [-c COLD_EVERY] [-t TARGETS]
#
# BIN_DIR holds atomutil-profile, launches and cluster_histogram (default build/bin).  One round
# runs every target once; every COLD_EVERY-th round (and the first, which is the first profiled
# run after the build) starts with the sharing lock directory ($TMPDIR/atomutil-<uid>) and the
# listing cache ($XDG_CACHE_HOME or ~/.cache, atomutil/) removed.  TARGETS is a comma list of
# the names below (default: all).  For every run the target's exit status and its standard output
# (timings masked) must equal the plain run's, and the counters file must hold every launch the
# target made.  Raw results: OUT_DIR/runs.csv (one row per run), OUT_DIR/plain/ and the evidence
# of every failed run under OUT_DIR/fail/.  The last line is
#   stress: runs R crashes C lost L
# C: runs whose exit status or output differ from the plain run's; L: launches missing from the
# counters files, summed.  Exit status 0 when C = L = 0.
# STRESS_PRELOAD=LIB adds LIB to LD_PRELOAD of the profiled runs (tests/hostile/segv_where.c:
# where a crash happened).
set -u
bin=build/bin out=stress-out rounds=20 cold_every=5 only=""
while getopts "b:o:r:c:t:h" opt; do
    case $opt in
    b) bin=$OPTARG ;;
    o) out=$OPTARG ;;
    r) rounds=$OPTARG ;;
    c) cold_every=$OPTARG ;;
    t) only=$OPTARG ;;
    h) sed -n '2,22p' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
bin=$(cd "$bin" && pwd) || exit 2
mkdir -p "$out"/plain "$out"/fail "$out"/work
out=$(cd "$out" && pwd)
prof=$bin/atomutil-profile
L=$bin/launches
CH=$bin/cluster_histogram
for f in "$prof" "$L"; do
    [ -x "$f" ] || { echo "stress.sh: $f not built" >&2; exit 2; }
done
nvidia-smi -L >/dev/null 2>&1 || { echo "stress.sh: no GPU" >&2; exit 77; }

# name|expected launches in the counters file|command (word-split; $L, $CH expanded at run time)
targets=(
    "t4s8|128|\$L -n 128 -t 4 -s 8"
    "t8s4|128|\$L -n 128 -t 8 -s 4"
    "t4ex|128|\$L -n 128 -t 4 -s 2 --ex"
    "t1s1|64|\$L -n 64"
    "graph|1|\$L -n 64 --graph"
    "procs2|128|bash -c \"\$L -n 64 -t 2 -s 2 & \$L -n 64 -t 4 -s 4 & wait\""
    "reset|64|\$L -n 64 --reset-every 8"
    "quick|1|\$L -n 1"
    "cluster|8|\$CH -i uniform -c all -r 2 -p 1048576"
)
if [ ! -x "$CH" ]; then
    targets=("${targets[@]:0:8}") # cluster_histogram needs sm_90 and is built only with CUDA
fi

selected() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
# stdout with run-to-run numbers masked (timings), lines sorted (two processes print in any order)
mask() { sed -E 's/(^| )(wall_ms|ms|gpix_per_s)=[0-9.]+/\1\2=#/g' "$1" | LC_ALL=C sort; }
lock_dir=${TMPDIR:-/tmp}/atomutil-$(id -u)
cache_dir=${XDG_CACHE_HOME:-$HOME/.cache}/atomutil
# launches in a counters file: distinct (process, launch id) pairs with a row
count_launches() {
    python3 - "$1" <<'PY'
import csv, sys
try:
    rows = csv.reader(l for l in open(sys.argv[1], errors="replace") if l.startswith('"'))
    head = next(rows)
    p, i = head.index("Process ID"), head.index("ID")
    print(len({(r[p], r[i]) for r in rows if len(r) == len(head)}))
except (OSError, StopIteration, ValueError):
    print(0)
PY
}

echo "name,round,cold,status,plain_status,output_same,expected,measured,lost,wall_s" >"$out/runs.csv"
for t in "${targets[@]}"; do
    IFS='|' read -r name _ cmd <<<"$t"
    selected "$name" || continue
    (cd "$out/plain" && eval "$cmd" >"$name.out" 2>"$name.err"; echo $? >"$name.status")
    mask "$out/plain/$name.out" >"$out/plain/$name.masked"
    echo "plain $name: exit $(cat "$out/plain/$name.status")"
done

runs=0 crashes=0 lost=0
for ((r = 0; r < rounds; r++)); do
    cold=0
    if [ $((r % cold_every)) -eq 0 ]; then
        cold=1
        rm -rf "$lock_dir" "$cache_dir"
    fi
    for t in "${targets[@]}"; do
        IFS='|' read -r name expected cmd <<<"$t"
        selected "$name" || continue
        w=$out/work/$name
        rm -rf "$w" && mkdir -p "$w"
        t0=$(date +%s.%N)
        (cd "$w" && eval "LD_PRELOAD=\${STRESS_PRELOAD:-} \"\$prof\" -q -o run --csv -- $cmd" \
            >run.out 2>run.err; echo $? >run.status)
        t1=$(date +%s.%N)
        st=$(cat "$w/run.status")
        pst=$(cat "$out/plain/$name.status")
        same=1
        mask "$w/run.out" | cmp -s - "$out/plain/$name.masked" || same=0
        measured=$(count_launches "$w/run.counters.csv")
        miss=$((expected > measured ? expected - measured : 0))
        runs=$((runs + 1))
        lost=$((lost + miss))
        bad=0
        if [ "$st" != "$pst" ] || [ "$same" = 0 ]; then
            crashes=$((crashes + 1))
            bad=1
        fi
        [ "$miss" -gt 0 ] && bad=1
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
        echo "$name,$r,$cold,$st,$pst,$same,$expected,$measured,$miss,$wall" >>"$out/runs.csv"
        if [ "$bad" = 1 ]; then
            echo "FAIL $name round $r: exit $st (plain $pst), output same $same, launches $measured of $expected"
            mkdir -p "$out/fail/$name-$r"
            cp "$w"/run.out "$w"/run.err "$w"/run.status "$out/fail/$name-$r/" 2>/dev/null
            cp "$w"/run.counters.csv "$out/fail/$name-$r/" 2>/dev/null
        fi
    done
    echo "round $r: runs $runs crashes $crashes lost $lost"
done
echo "stress: runs $runs crashes $crashes lost $lost"
[ "$crashes" -eq 0 ] && [ "$lost" -eq 0 ]
