"""A PyTorch program for live profiling through an interpreter: torch.histc on the GPU builds its
histogram with shared-memory atomics.  Run: atomutil-profile -- python3 examples/python/torch_hist.py
"""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("torch_hist: no CUDA device")
torch.manual_seed(0)
x = torch.randint(0, 256, (1 << 22,), device="cuda", dtype=torch.int32).float()
solid = torch.full((1 << 22,), 7.0, device="cuda")
for data in (x, solid):
    h = torch.histc(data, bins=256, min=0, max=255)
    torch.cuda.synchronize()
    assert int(h.sum().item()) == data.numel(), "histogram lost counts"
print("torch_hist: ok")
