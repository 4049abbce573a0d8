"""CUDA graphs in PyTorch: a histogram (torch.histc, shared-memory atomics) and a bincount-free
reduction captured with torch.cuda.graph and replayed, for atomutil-profile's graph measurement
(docs/live-profiling.md).  Prints one checksum line per replay so that runs with and without
atomutil can be compared (tests/device/graph_check.sh).
Run: atomutil-profile -- python3 examples/python/torch_graph.py [REPLAYS]
"""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("torch_graph: no CUDA device")
replays = int(sys.argv[1]) if len(sys.argv) > 1 else 3
torch.manual_seed(0)
n = 1 << 22
x = torch.rand(n, device="cuda")
one = torch.full((n,), 0.5, device="cuda")
out = {}

def step():
    out["h"] = torch.histc(x, bins=256, min=0.0, max=1.0)
    out["c"] = torch.histc(one, bins=64, min=0.0, max=1.0)
    out["s"] = (x * 2.0 + 1.0).sum()

s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    step()  # warm-up outside the graph (allocations, module loads)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    step()
for r in range(replays):
    x.mul_(0.5).add_(0.25)  # new data each replay, outside the graph
    g.replay()
    torch.cuda.synchronize()
    h, c = out["h"].double(), out["c"].double()
    print(f"replay {r}: hist_sum {h.sum().item():.1f} hist_w {(h * torch.arange(256, device='cuda')).sum().item():.1f} "
          f"const_bin {int(c.argmax().item())} sum {out['s'].item():.4f}")
