"""A PyTorch int64 histogram for live profiling: torch.bincount counts into int64 bins in shared
memory, which sm_90 updates with a CAS loop (ATOMS.CAST.SPIN.64).  On constant data every lane of
every warp hits one bin (the worst contention), on uniform data the lanes spread over 256 bins.
Run: atomutil-profile -- python3 examples/python/torch_bincount.py
"""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("torch_bincount: no CUDA device")
torch.manual_seed(0)
n = 1 << 22
uniform = torch.randint(0, 256, (n,), device="cuda", dtype=torch.int64)
constant = torch.full((n,), 7, device="cuda", dtype=torch.int64)
for data in (uniform, constant):
    h = torch.bincount(data, minlength=256)
    torch.cuda.synchronize()
    assert h.dtype == torch.int64 and int(h.sum().item()) == n, "histogram lost counts"
print("torch_bincount: ok")
