"""PyTorch sort and unique of 16 M int32 keys (radix-sort kernels of CUB, whose digit histograms
use shared atomics), a framework target for atomutil-profile's overhead benchmark
(bench/bench_framework.sh).
Run: atomutil-profile -- python3 examples/python/torch_sort_unique.py
"""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("torch_sort_unique: no CUDA device")
torch.manual_seed(0)
n = 1 << 24
x = torch.randint(0, 1 << 20, (n,), device="cuda", dtype=torch.int32)
s, _ = torch.sort(x)
u, counts = torch.unique(x, return_counts=True)
torch.cuda.synchronize()
assert bool((s[1:] >= s[:-1]).all()), "sort is not ordered"
assert int(counts.sum().item()) == n, "unique lost keys"
print(f"torch_sort_unique: ok ({u.numel()} distinct keys)")
