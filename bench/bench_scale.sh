#!/usr/bin/env bash
# Scale (issue 21): what atomutil-profile costs on a program of thousands of launches, measuring
# every launch against measuring a selection.  examples/python/train.py (about 300 launches per
# step, one kernel with shared atomics) runs PAIRS times in each of four modes, the order rotated
# from one rep to the next: alone (plain); under atomutil-profile measuring every launch (all);
# with -k kernelHistogram1D (selected: its one kernel with shared atomics); with
# --launches-per-kernel 3 (capped).  Then build/bin/cupti_floor once (the range profiler's own
# cost per measured launch, bench/cupti_floor.c).  Before the reps, one untimed plain run and
# one untimed capped run warm the file cache and the listing cache (OUT/cache).
# Writes under OUT: raw.csv (mode,rep,seconds,launches,gpu), timing-MODE-REP.txt (atomutil-profile's
# --timing lines and the injection library's diagnostics), check-MODE-REP.json (train.py --check),
# floor.txt, env.txt; failures.txt and err-MODE-REP.txt for runs that failed (the others are kept).
# bench/bench_scale.py OUT prints the summary, ending with the line
#   scale: launches L per-launch-ms X selected-overhead-pct Y capped-overhead-pct Z floor-ms F
# (docs/performance.md, "Scale").  Run on a GPU machine from the repository root after building;
# never changes device settings.
#   bench/bench_scale.sh [BUILD_DIR] [--pairs N] [--steps N] [--out DIR] [--first-rep K]
#                          [--modes LIST] [--parallel] [--no-floor] [--no-opcodes] [--pack FILE]
# --pack FILE writes OUT (less its listing cache) to the tar.gz FILE after every rep and at the
# end, each time whole (a run cut short by a time limit keeps the reps that finished, in a form
# that a lent machine's few returned files can carry).
# --first-rep K keeps reps 0..K-1 of OUT/raw.csv and runs K..N-1 (a run cut short by a time limit).
# A fifth mode, counted (-k kernelHistogram1D --launch-count 2: the profiler is disabled after
# the selection's last launch), runs only when named in --modes.
# --modes LIST runs only those modes (a comma list with plain, e.g. plain,selected,capped: the
# summary says n/a for the figures of the others).  A mode control is the plain program again
# (an A/A pair: how far two plain runs differ by chance; named only in --modes).
# --parallel runs the modes of a rep at once, each on a GPU of its own (CUDA_VISIBLE_DEVICES), the
# GPUs rotated from rep to rep: a pair's runs then share the host's moment (file cache, CPU
# neighbours), which the runs of a rep one after the other do not.  Needs a GPU per mode, of one
# model; raw.csv's gpu column names each run's.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage() {
    echo "usage: bench/bench_scale.sh [BUILD_DIR] [--pairs N] [--steps N] [--out DIR] [--first-rep K] [--modes LIST] [--parallel] [--no-floor] [--no-opcodes] [--pack FILE]" >&2
    exit 2
}
build=build pairs=5 steps=20 out="" first=0 floor=1 opcodes=() modelist=plain,all,selected,capped pack="" parallel=0
positional=0
while [ $# -gt 0 ]; do
    case $1 in
    --pairs | --steps | --out | --first-rep | --modes | --pack)
        [ $# -ge 2 ] || { echo "bench_scale: $1 needs a value" >&2; usage; }
        case $1 in
        --pairs) pairs=$2 ;; --steps) steps=$2 ;; --out) out=$2 ;; --first-rep) first=$2 ;; --modes) modelist=$2 ;;
        --pack) pack=$2 ;;
        esac
        shift 2 ;;
    --no-floor) floor=0; shift ;;
    --parallel) parallel=1; shift ;;
    --no-opcodes) opcodes=(--no-opcodes); shift ;;
    -h | --help) usage ;;
    -*) echo "bench_scale: unknown option $1" >&2; usage ;;
    *) [ $positional = 0 ] || { echo "bench_scale: unexpected argument $1" >&2; usage; }
       build=$1 positional=1; shift ;;
    esac
done
for v in pairs steps first; do
    [[ ${!v} =~ ^[0-9]+$ ]] || { echo "bench_scale: --${v/first/first-rep} takes a number, not '${!v}'" >&2; exit 2; }
done
[ "$pairs" -ge 1 ] && [ "$steps" -ge 1 ] || { echo "bench_scale: --pairs and --steps take a positive number" >&2; exit 2; }
IFS=, read -r -a modes <<< "$modelist"
for m in "${modes[@]}"; do
    case $m in plain | all | selected | capped | counted | control) ;; *) echo "bench_scale: --modes: unknown mode '$m'" >&2; exit 2 ;; esac
done
[[ ,$modelist, == *,plain,* ]] || { echo "bench_scale: --modes must include plain (the runs are compared with it)" >&2; exit 2; }
[ "$(printf '%s\n' "${modes[@]}" | sort | uniq -d)" = "" ] || { echo "bench_scale: --modes names a mode twice" >&2; exit 2; }
abs=$(cd "$build" 2>/dev/null && pwd) || { echo "bench_scale: no build directory $build" >&2; exit 1; }
build=$abs
prof=$build/bin/atomutil-profile
[ -x "$prof" ] || { echo "bench_scale: $prof not found: build first (cmake --build $build)" >&2; exit 1; }
train=$here/examples/python/train.py
gpus=()
if [ $parallel = 1 ]; then
    # the GPUs this process may use, as CUDA_VISIBLE_DEVICES will name them to each run
    if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
        IFS=, read -r -a gpus <<< "$CUDA_VISIBLE_DEVICES"
    else
        mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null)
    fi
    [ ${#gpus[@]} -ge ${#modes[@]} ] ||
        { echo "bench_scale: --parallel needs a GPU per mode: ${#modes[@]} modes, ${#gpus[@]} GPUs" >&2; exit 1; }
    [ "$(nvidia-smi --query-gpu=name --format=csv,noheader | sort -u | wc -l)" = 1 ] ||
        { echo "bench_scale: --parallel needs GPUs of one model" >&2; exit 1; }
fi
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
    { echo "bench_scale: python3 has no PyTorch with CUDA: nothing to measure" >&2; exit 1; }
if [ -z "$out" ]; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr '[:upper:]' '[:lower:]' | sed 's/nvidia//')
    short=$(grep -oE '[a-z]+[0-9]+[a-z0-9]*' <<< "$gpu" | head -1)
    [ -n "$short" ] || short=$(tr -cs 'a-z0-9' '-' <<< "$gpu" | sed 's/^-//;s/-$//')
    out=$here/build/bench/scale-${short:-gpu}-$(date -u +%Y-%m-%d)
fi
mkdir -p "$out" && out=$(cd "$out" && pwd) || { echo "bench_scale: cannot make $out" >&2; exit 1; }
export ATOMUTIL_CACHE_DIR=$out/cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
    (cd "$here" && git rev-parse HEAD 2>/dev/null)
    python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)' 2>&1
    echo "steps $steps pairs $pairs opcodes ${opcodes[*]:-on} modes $modelist"
    [ $parallel = 0 ] || echo "parallel: the modes of a rep at once on GPUs ${gpus[*]}, rotated"
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$out/env.txt" 2>&1

raw=$out/raw.csv
if [ "$first" -gt 0 ] && [ -f "$raw" ]; then
    awk -F, -v f="$first" 'NR == 1 || $2 < f' "$raw" > "$tmp/raw" && cp "$tmp/raw" "$raw"
else
    first=0
    echo "mode,rep,seconds,launches,gpu" > "$raw"
    : > "$out/failures.txt"
fi

# the atomutil-profile options of each profiled mode
mode_opts() {
    case $1 in
    all) echo "" ;;
    selected) echo "-k kernelHistogram1D" ;;
    counted) echo "-k kernelHistogram1D --launch-count 2" ;;
    capped) echo "--launches-per-kernel 3" ;;
    esac
}

# one run of MODE for rep REP ("warm" for an untimed one), on GPU (CUDA_VISIBLE_DEVICES; empty: as
# the environment says): its row in raw.csv, or a line in failures.txt and the run's stderr in
# err-MODE-REP.txt.  Its scratch files are its own (--parallel runs modes at once).
run_mode() {
    local mode=$1 rep=$2 gpu=${3:-} t0 t1 rc n="" sec
    local check=$out/check-$mode-$rep.json s=$tmp/$mode profiled=1
    local -a cmd=(python3 "$train" --steps "$steps" --check "$check")
    case $mode in plain | control) profiled=0 ;; esac
    if [ $profiled = 1 ]; then
        local -a sel
        read -r -a sel <<< "$(mode_opts "$mode")"
        cmd=("$prof" -q --timing "${opcodes[@]}" "${sel[@]}" -o "$s/au" -- "${cmd[@]}")
    fi
    [ -z "$gpu" ] || cmd=(env CUDA_VISIBLE_DEVICES="$gpu" "${cmd[@]}")
    rm -rf "$s" && mkdir -p "$s"
    t0=$(date +%s.%N)
    "${cmd[@]}" > "$s/out" 2> "$s/err"
    rc=$?
    t1=$(date +%s.%N)
    sec=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
    if [ $rc -ne 0 ]; then
        cp "$s/err" "$out/err-$mode-$rep.txt"
        echo "$mode rep $rep: exit $rc after $sec s: ${cmd[*]}" >> "$out/failures.txt"
        echo "bench_scale: $mode rep $rep FAILED (exit $rc): see $out/err-$mode-$rep.txt" >&2
        return 1
    fi
    if [ $profiled = 1 ]; then
        n=$(sed -n 's/.*timing: launch-callbacks .*(\([0-9]*\) launches measured).*/\1/p' "$s/err" | head -1)
        { cat "$s/err"; grep -h '^==ATOMUTIL==.*timing' "$s/au.counters.csv" 2>/dev/null; } > "$out/timing-$mode-$rep.txt"
    fi
    [ "$rep" = warm ] && { rm -f "$check"; return 0; }
    echo "$mode,$rep,$sec,$n,$gpu" >> "$raw"
    echo "bench_scale: $mode rep $rep: $sec s${n:+, $n launches measured}${gpu:+ (GPU $gpu)}" >&2
}

fails=0
if [ "$first" -eq 0 ]; then
    rm -rf "$ATOMUTIL_CACHE_DIR"
    run_mode plain warm || fails=$((fails + 1))
    [[ ,$modelist, != *,capped,* ]] || run_mode capped warm || fails=$((fails + 1))
fi
# OUT as a tar.gz at --pack's path, replaced whole (a reader never sees half of one)
pack_out() {
    [ -n "$pack" ] || return 0
    tar czf "$pack.tmp" --exclude=cache -C "$(dirname "$out")" "$(basename "$out")" && mv "$pack.tmp" "$pack" ||
        echo "bench_scale: cannot write $pack" >&2
}
for ((r = first; r < pairs; ++r)); do
    if [ $parallel = 1 ]; then
        pids=()
        for ((k = 0; k < ${#modes[@]}; ++k)); do
            run_mode "${modes[k]}" "$r" "${gpus[$(((k + r) % ${#gpus[@]}))]}" &
            pids+=($!)
        done
        for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
    else
        for ((k = 0; k < ${#modes[@]}; ++k)); do
            run_mode "${modes[$(((k + r) % ${#modes[@]}))]}" "$r" || fails=$((fails + 1))
        done
    fi
    pack_out
done
if [ $floor = 1 ]; then
    if [ -x "$build/bin/cupti_floor" ]; then
        "$build/bin/cupti_floor" > "$out/floor.txt" 2>&1 ||
            { echo "bench_scale: cupti_floor FAILED (exit $?): see $out/floor.txt" >&2; fails=$((fails + 1)); }
    else
        echo "bench_scale: $build/bin/cupti_floor not built (CUPTI missing?): floor-ms n/a" >&2
    fi
fi
[ $fails -eq 0 ] || echo "bench_scale: $fails failures (see $out/failures.txt); the summary uses the runs that finished" >&2
python3 "$here/bench/bench_scale.py" "$out" | tee "$out/summary.txt" || fails=$((fails + 1))
pack_out
exit $((fails > 0))
