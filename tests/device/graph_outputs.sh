#!/bin/sh
# graph_outputs.sh - GPU test: CUDA graph launches are measured without changing what they
# compute.  examples/python/torch_graph.py captures PyTorch histograms (torch.histc, shared
# atomics) and a reduction into one graph and prints a checksum line per replay; the lines must be
# the same with and without atomutil-profile, and the report must hold one row per replay
# ("graph N (K kernel nodes)") with shared-atomic jobs.  Exit 77 (skipped) without a GPU or
# without PyTorch.
#   graph_outputs.sh ATOMUTIL_PROFILE SOURCE_DIR WORKDIR
prof=$1 src=$2 work=$3
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "no PyTorch with CUDA: skipped"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
replays=4
python3 "$src/examples/python/torch_graph.py" $replays > plain.out 2> plain.err || { echo "FAIL: the program alone exited $?"; cat plain.err; exit 1; }
"$prof" -q --csv -o graph -- python3 "$src/examples/python/torch_graph.py" $replays > prof.out 2> prof.err ||
    { echo "FAIL: atomutil-profile exited $?"; cat prof.err; exit 1; }
fail=0
# the report's CSV goes to graph.csv; stdout holds the program's own lines
grep '^replay' plain.out > plain.lines
grep '^replay' prof.out > prof.lines
[ "$(wc -l < plain.lines)" -eq $replays ] || { echo "FAIL: the program printed $(wc -l < plain.lines) replay lines, want $replays"; fail=1; }
cmp -s plain.lines prof.lines || { echo "FAIL: graph results differ under atomutil-profile:"; diff plain.lines prof.lines; fail=1; }
rows=$(grep -c '"graph [0-9]* (' graph.csv)
[ "$rows" -eq $replays ] || { echo "FAIL: $rows graph rows in the report, want $replays"; fail=1; }
grep -q "graphs: $replays CUDA graph launches measured" graph.counters.csv ||
    { echo "FAIL: the counters file does not say $replays graph launches were measured"; fail=1; }
grep '"graph [0-9]* (' graph.csv | head -2
[ $fail -eq 0 ] && echo "PASS: $replays graph replays measured, outputs identical"
exit $fail
