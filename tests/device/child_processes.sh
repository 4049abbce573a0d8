#!/bin/sh
# child_processes.sh - GPU test: a program that starts CUDA child processes is reported per
# process, nothing lost.  examples/python/torch_spawn.py runs torch.bincount in the parent and in
# WORKERS children started with multiprocessing's spawn method (GPU rank % GPUs: two GPUs if the
# machine has them, else all on one); every process must have measured launches in the counters
# file, and the report must list them ("N processes"); with two GPUs visible, both GPUs must have
# measured launches (the parent and rank 2 on GPU 0, rank 1 on GPU 1).  Exit 77 (skipped) without a
# GPU or PyTorch.
#   child_processes.sh ATOMUTIL_PROFILE SOURCE_DIR WORKDIR
prof=$1 src=$2 work=$3
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "no PyTorch with CUDA: skipped"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
workers=2
"$prof" -o spawn -- python3 "$src/examples/python/torch_spawn.py" $workers > spawn.out 2> spawn.err ||
    { echo "FAIL: atomutil-profile exited $?"; cat spawn.err; exit 1; }
fail=0
grep -q "torch_spawn: ok ($((workers + 1)) processes)" spawn.out || { echo "FAIL: the program's check"; fail=1; }
# distinct process ids with measured rows (column 2 of the counters file's rows)
procs=$(grep '"sm__cycles_active.avg"' spawn.counters.csv | cut -d, -f2 | sort -u | wc -l)
[ "$procs" -eq $((workers + 1)) ] || { echo "FAIL: $procs processes measured, want $((workers + 1))"; fail=1; }
# launches per (process, device): columns "Process ID" and "Device" (kernel names hold commas)
python3 - spawn.counters.csv > per_device.txt <<'PY'
import collections, csv, sys
rows = (r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
head = next(rows)
pid, dev, metric = head.index("Process ID"), head.index("Device"), head.index("Metric Name")
n = collections.Counter((r[pid], r[dev]) for r in rows if r[metric] == "sm__cycles_active.avg")
for (p, d), k in sorted(n.items()):
    print(f"process {p} on device {d}: {k} launches measured")
PY
cat per_device.txt
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus" -ge 2 ]; then
    devs=$(awk '{print $5}' per_device.txt | sort -u | wc -l)
    [ "$devs" -eq 2 ] || { echo "FAIL: launches measured on $devs devices, want 2 ($gpus GPUs visible)"; fail=1; }
fi
grep -q "^$((workers + 1)) processes (launch ids count per process)" spawn.txt ||
    { echo "FAIL: the report does not list $((workers + 1)) processes"; fail=1; }
grep -A4 "processes (launch ids" spawn.txt
[ $fail -eq 0 ] && echo "PASS: $((workers + 1)) processes reported"
exit $fail
