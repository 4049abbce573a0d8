#!/bin/sh
# replay_outputs.sh - GPU test: launches measured with the dsmem counter set (several passes,
# CUPTI's kernel replay: docs/counters.md, "The dsmem counter set") compute what they compute
# alone.  examples/cluster_histogram checks every launch's histogram against the CPU's and prints
# one line per image and cluster size; the lines (timings masked) must be the same with and
# without atomutil-profile.  In the report every launch with clusters after the kernel's first
# has the flag replayed and no range, the launches without clusters none; the counters file
# names the passes of each replayed launch and the replay timing line.  Exit 77 (skipped)
# without a GPU or below compute capability 9.0.
#   replay_outputs.sh ATOMUTIL_PROFILE CLUSTER_HISTOGRAM WORKDIR
prof=$1 prog=$2 work=$3
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
"$prog" -i solid -r 2 > plain.out 2> plain.err
rc=$?
[ $rc -eq 3 ] && { echo "GPU below compute capability 9.0: skipped"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: the program alone exited $rc"; cat plain.err; exit 1; }
"$prof" -q --csv -o replay -- "$prog" -i solid -r 2 > prof.out 2> prof.err ||
    { echo "FAIL: atomutil-profile exited $?"; cat prof.err; exit 1; }
fail=0
mask() { grep '^cluster_hist' "$1" | sed 's/ms=[0-9.]*//; s/gpix_per_s=[0-9.]*//'; }
mask plain.out > plain.lines
mask prof.out > prof.lines
[ "$(grep -c 'check=ok' plain.lines)" -ge 4 ] || { echo "FAIL: the program printed no checked lines"; fail=1; }
cmp -s plain.lines prof.lines || { echo "FAIL: results differ under atomutil-profile:"; diff plain.lines prof.lines; fail=1; }
# the report: launches of cluster size > 1 after the first replayed, without a range
python3 - replay.csv <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
clustered = [r for r in rows if r["cluster_size"] not in ("", "1")]
plain = [r for r in rows if r["cluster_size"] in ("", "1")]
replayed = [r for r in clustered if "replayed" in r["flags"].split(",")]
bad = [r["launch_id"] for r in plain if "replayed" in r["flags"].split(",")]
ranged = [r["launch_id"] for r in replayed if r["util_pct_lo"] or r["util_pct_hi"]]
print(f"{len(rows)} launches, {len(clustered)} with clusters, {len(replayed)} replayed")
ok = len(replayed) >= len(clustered) - 1 and len(replayed) > 0 and not bad and not ranged
if not ok:
    print(f"FAIL: replayed {len(replayed)} of {len(clustered)}; flagged without clusters {bad}; with a range {ranged}")
sys.exit(0 if ok else 1)
PY
grep -q '"profiler__replayer_passes","pass","[2-9]"' replay.counters.csv ||
    { echo "FAIL: no profiler__replayer_passes row in the counters file"; fail=1; }
grep -q 'timing: replay launches=[1-9]' replay.counters.csv ||
    { echo "FAIL: no replay timing line in the counters file"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: replayed launches computed what the program computes alone"
exit $fail
