#!/usr/bin/env python3
"""Framework histograms for the advisor's validation (docs/validation.md, "Framework pairs"):
kernels nobody here wrote, run on conflict-heavy and on conflict-free keys, one op and one input
per process, so that atomutil-profile prices the first and the second measures what the cure
"spread the keys" buys.

usage: frameworks.py --list
       frameworks.py OP INPUT [--elements N] [--reps R]

OP      torch_bincount   torch.bincount of int64 keys, 256 bins (PyTorch's kernelHistogram1D)
        torch_weighted   torch.bincount with float32 weights, 256 bins
        torch_histc      torch.histc of float keys, 256 bins
        cupy_histogram   cupy.histogram of int32 keys, 256 bins, through CUB (DeviceHistogram)
        cupy_bincount32  torch_bincount's cure `native`, written here: PyTorch's kernelHistogram1D
                         (its grid and block, the int64 keys) with 32-bit counters in shared
                         memory, a CuPy RawKernel (the counts widened when merged)
INPUT   one              every key 7: every lane of every warp on one bin
        skew             256 u^8 (u uniform): 42 % of the keys are 0
        rand             uniform over the 256 bins
--elements N  keys (default 16777216); --reps R  timed calls after one warm-up (default 5)

--list prints the ops whose framework imports here, one per line.  Each call's result is checked
against the keys (the counts sum to N, the weighted sums to the weights' sum); a wrong result is
exit status 1, a missing framework or bad usage 2.
"""
import argparse
import os
import sys

BINS = 256
OPS = ("torch_bincount", "torch_weighted", "torch_histc", "cupy_histogram", "cupy_bincount32")
INPUTS = ("one", "skew", "rand")


def usage(msg):
    print("frameworks.py: %s" % msg, file=sys.stderr)
    sys.exit(2)


def keys_numpy(kind, n):
    """The keys as a numpy int32 array, the same for every op (fixed seed)."""
    import numpy as np
    if kind == "one":
        return np.full(n, 7, dtype=np.int32)
    rng = np.random.default_rng(12345)
    if kind == "rand":
        return rng.integers(0, BINS, n, dtype=np.int32)
    u = rng.random(n)
    return np.minimum((BINS * u**8).astype(np.int32), BINS - 1)


def torch_op(op, keys, reps):
    import torch
    if not torch.cuda.is_available():
        usage("torch sees no CUDA device")
    x = torch.from_numpy(keys).cuda()
    n = x.numel()
    if op == "torch_bincount":
        x = x.long()
        call = lambda: torch.bincount(x, minlength=BINS)
        want = float(n)
    elif op == "torch_weighted":
        x = x.long()
        w = torch.full((n,), 0.5, device="cuda", dtype=torch.float32)
        call = lambda: torch.bincount(x, weights=w, minlength=BINS)
        want = 0.5 * n
    else:
        x = x.float()
        call = lambda: torch.histc(x, bins=BINS, min=0, max=BINS - 1)
        want = float(n)
    for _ in range(1 + reps):
        h = call()
        torch.cuda.synchronize()
        got = float(h.double().sum().item())
        if abs(got - want) > 1e-6 * want:
            print("frameworks.py: %s sums to %r, not %r" % (op, got, want), file=sys.stderr)
            sys.exit(1)


def cupy_histogram(keys, reps):
    os.environ.setdefault("CUPY_ACCELERATORS", "cub")
    import cupy
    from cupy._core import _accelerator
    if _accelerator.ACCELERATOR_CUB not in _accelerator.get_routine_accelerators():
        usage("CuPy's CUB accelerator is off (CUPY_ACCELERATORS=%s)" % os.environ.get("CUPY_ACCELERATORS"))
    x = cupy.asarray(keys)
    for _ in range(1 + reps):
        h, _edges = cupy.histogram(x, bins=BINS, range=(0, BINS))
        cupy.cuda.runtime.deviceSynchronize()
        if int(h.sum()) != keys.size:
            print("frameworks.py: cupy_histogram sums to %d, not %d" % (int(h.sum()), keys.size), file=sys.stderr)
            sys.exit(1)


# PyTorch's kernelHistogram1D for bincount with the counters in shared memory made 32-bit, which sm_90
# updates with a native atomic instead of a 64-bit CAS loop; a block counts at most 4608 keys
BINCOUNT32 = r"""
extern "C" __global__ void bincount32(const long long *x, unsigned long long *out, long long n, int nbins)
{
    extern __shared__ unsigned int s[];
    for (int i = threadIdx.x; i < nbins; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long v = x[i];
        if (v >= 0 && v <= nbins - 1) {
            long long bin = v * nbins / (nbins - 1); /* PyTorch's getBin on [0, nbins - 1] */
            atomicAdd(&s[bin == nbins ? bin - 1 : bin], 1u);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < nbins; i += blockDim.x)
        atomicAdd(&out[i], (unsigned long long)s[i]);
}
"""


def cupy_bincount32(keys, reps):
    import cupy
    kern = cupy.RawKernel(BINCOUNT32, "bincount32")
    x = cupy.asarray(keys.astype("int64"))
    n, block = keys.size, 512
    grid = (n + 9 * block - 1) // (9 * block)  # as PyTorch 2.11 launches kernelHistogram1D: 3641 blocks at 16 Mi
    for _ in range(1 + reps):
        out = cupy.zeros(BINS, dtype=cupy.uint64)
        kern((grid,), (block,), (x, out, cupy.int64(n), cupy.int32(BINS)), shared_mem=4 * BINS)
        cupy.cuda.runtime.deviceSynchronize()
        if int(out.sum()) != n:
            print("frameworks.py: cupy_bincount32 sums to %d, not %d" % (int(out.sum()), n), file=sys.stderr)
            sys.exit(1)


def available(op):
    mod = "cupy" if op.startswith("cupy_") else "torch"
    try:
        __import__(mod)
        return True
    except Exception:
        return False


def main(argv):
    if argv == ["--list"]:
        for op in OPS:
            if available(op):
                print(op)
        return 0

    def at_least(least):
        def number(v):  # argparse names it in its message: "invalid number value"
            if int(v) < least:
                raise ValueError(v)
            return int(v)
        return number

    ap = argparse.ArgumentParser(prog="frameworks.py", usage="frameworks.py OP INPUT [--elements N] [--reps R]")
    ap.add_argument("op", choices=OPS)
    ap.add_argument("input", choices=INPUTS)
    ap.add_argument("--elements", type=at_least(1), default=1 << 24)
    ap.add_argument("--reps", type=at_least(0), default=5)
    args = ap.parse_args(argv)  # a usage error: exit status 2
    op, kind, n, reps = args.op, args.input, args.elements, args.reps
    if not available(op):
        usage("%s: its framework does not import here" % op)
    keys = keys_numpy(kind, n)
    if op == "cupy_histogram":
        cupy_histogram(keys, reps)
    elif op == "cupy_bincount32":
        cupy_bincount32(keys, reps)
    else:
        torch_op(op, keys, reps)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
