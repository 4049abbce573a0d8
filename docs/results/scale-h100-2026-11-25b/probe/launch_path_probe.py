#!/usr/bin/env python3
"""Which host-side call gets slower after atomutil measured one launch (issue 21, later-step cost).
Run plain and as: atomutil-profile -q -k kernelHistogram1D --launch-count 1 -- python3 THIS
Phase A: each op timed in a loop before any bincount; then one bincount (the measured launch);
phase B: the same loops.  Prints per op: A us, B us, B-A us."""
import sys, time, json
import torch

N = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
dev = "cuda"
x = torch.randn(256, device=dev)
y = torch.randn(256, device=dev)
idx = torch.randint(0, 64, (4096,), device=dev)
s = torch.cuda.current_stream()
ev = torch.cuda.Event()
lin = torch.nn.Linear(256, 256, device=dev)
xb = torch.randn(64, 256, device=dev)

ops = {
    "add": lambda: torch.add(x, y),
    "add_": lambda: x.add_(y).sub_(y),
    "linear": lambda: lin(xb),
    "empty": lambda: torch.empty(256, device=dev),
    "current_device": lambda: torch.cuda.current_device(),
    "is_capturing": lambda: torch.cuda.is_current_stream_capturing(),
    "event_record": lambda: ev.record(s),
    "zeros": lambda: torch.zeros(256, device=dev),
    "sum": lambda: x.sum(),
}


def phase():
    out = {}
    for name, f in ops.items():
        for _ in range(200):
            f()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(N):
            f()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        out[name] = (t1 - t0) / N * 1e6
        out[name + "/sync"] = (t2 - t0) / N * 1e6
    return out


a = phase()
torch.bincount(idx, minlength=64)
torch.cuda.synchronize()
b = phase()
for k in a:
    print(f"{k:16} A {a[k]:7.2f} us  B {b[k]:7.2f} us  B-A {b[k] - a[k]:+6.2f} us")
print(json.dumps({"A": a, "B": b}))
