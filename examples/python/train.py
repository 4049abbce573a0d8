"""A small training loop for atomutil-profile's scale benchmark (bench/bench_scale.sh) and its
selection tests (tests/device/select_check.py): an embedding, LAYERS linear layers with GELU and an
output layer, cross-entropy, AdamW on its single-tensor path (eight small kernels per parameter),
about 300 kernel launches per step; and every HIST_EVERY steps a torch.bincount of the batch's
tokens into 64 bins, which PyTorch counts in shared memory (at::cuda::kernelHistogram1D, bins
under 100): the program's one kernel with shared atomics.  Everything is seeded; the embedding's
backward stays on its deterministic path (at most 3072 indices per batch), so two runs of one
build on one GPU compute the same, and the histograms are exact.

Run: atomutil-profile -k kernelHistogram1D -- python3 examples/python/train.py [options]
Options: --steps N (default 500: about 5-10 s alone on an H100), --seed S (0), --hist-every N (10),
--layers L (12), --device D (cuda; cpu runs the same loop without a GPU), --check FILE (the final loss, the parameters' sums and the histograms as JSON, to
compare runs, and the program's own seconds: "seconds": {"setup": CUDA's start and the model's
build, "loop": the steps to the final loss, "steps": each step's end, seconds into the loop}, which
leave Python's start and imports out),
--profile-range A:B (torch.cuda.profiler.start() before step A and stop() after
step B-1, for atomutil-profile --profile-from-start off).
Prints one line on stdout, "train: steps N loss X".  Exit 77 without PyTorch or a CUDA device.
"""
import argparse
import json
import sys
import time

VOCAB = 64  # bins of the histogram: under PyTorch's 100, so they are kept in shared memory
SEQ = 32
BATCH = 64  # SEQ * BATCH = 2048 indices: the embedding's backward without sorting (at most 3072)
DIM = 64
HIDDEN = 128
CLASSES = 16
POOL = 16  # batches made once, used in turn


def parse_args():
    p = argparse.ArgumentParser(description="a small PyTorch training loop for atomutil-profile")
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hist-every", type=int, default=10)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--device", default="cuda")
    p.add_argument("--check", metavar="FILE")
    p.add_argument("--profile-range", metavar="A:B")
    a = p.parse_args()
    if a.steps < 1 or a.hist_every < 1 or a.layers < 1:
        p.error("--steps, --hist-every and --layers take a positive number")
    a.range = None
    if a.profile_range is not None:
        try:
            lo, hi = (int(x) for x in a.profile_range.split(":"))
        except ValueError:
            p.error(f"--profile-range: A:B expected, not {a.profile_range!r}")
        if not 0 <= lo < hi:
            p.error(f"--profile-range {a.profile_range}: want 0 <= A < B")
        a.range = (lo, hi)
        if a.device != "cuda":
            p.error("--profile-range needs --device cuda")
    return a


def build(torch, args):
    """The model (initialized from the seed on the CPU, then moved), its optimizer and the data."""
    nn = torch.nn
    torch.manual_seed(args.seed)
    dims = [DIM] + [HIDDEN] * args.layers
    model = nn.ModuleDict({
        "emb": nn.Embedding(VOCAB, DIM),
        "hidden": nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:])),
        "out": nn.Linear(dims[-1], CLASSES),
    }).to(args.device)
    # foreach=False: the per-parameter path, as an optimizer of many small tensors runs it
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, foreach=False)
    g = torch.Generator(device=args.device)
    g.manual_seed(args.seed)
    xs = torch.randint(0, VOCAB, (POOL, BATCH, SEQ), device=args.device, generator=g)
    # the class: how many of a sequence's tokens are in the lowest quarter, which the mean of the
    # embeddings can learn
    ys = (xs < VOCAB // 4).sum(-1).clamp(max=CLASSES - 1)
    return model, opt, xs, ys


def forward(torch, model, x):
    h = model["emb"](x).mean(1)
    for layer in model["hidden"]:
        h = torch.nn.functional.gelu(layer(h))
    return model["out"](h)


def train(torch, args, model, opt, xs, ys):
    """The loop; returns the last loss (a tensor), the last histogram and their running sum.  Nothing
    here waits for the GPU but torch.bincount itself (it reads the input's maximum)."""
    hist_total = torch.zeros(VOCAB, dtype=torch.int64, device=args.device)
    hist = None
    profiling = False
    ends = []  # each step's end on the host clock: where a profiler's time lands (bench_scale.py)
    for step in range(args.steps):
        if args.range and step == args.range[0]:
            torch.cuda.profiler.start()
            profiling = True
        x, y = xs[step % POOL], ys[step % POOL]
        loss = torch.nn.functional.cross_entropy(forward(torch, model, x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % args.hist_every == 0:
            hist = torch.bincount(x.flatten(), minlength=VOCAB)
            hist_total += hist
        if profiling and step == args.range[1] - 1:
            torch.cuda.profiler.stop()
            profiling = False
        ends.append(time.perf_counter())
    if profiling:
        torch.cuda.profiler.stop()
    return loss, hist, hist_total, ends


def write_check(path, args, model, loss, hist, hist_total, seconds):
    params = {name: [float(p.double().sum()), float(p.double().abs().sum())] for name, p in model.named_parameters()}
    doc = {
        "steps": args.steps,
        "seed": args.seed,
        "loss": loss,
        "hist_last": [int(v) for v in hist.tolist()],
        "hist_total": [int(v) for v in hist_total.tolist()],
        "params": params,
        "seconds": seconds,
    }
    with open(path, "w") as f:
        json.dump(doc, f, sort_keys=True)
        f.write("\n")


def main():
    args = parse_args()
    try:
        import torch
    except ImportError:
        print("train: no PyTorch: skipped", file=sys.stderr)
        return 77
    t0 = time.perf_counter()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("train: no CUDA device: skipped", file=sys.stderr)
        return 77
    model, opt, xs, ys = build(torch, args)
    t1 = time.perf_counter()
    loss, hist, hist_total, ends = train(torch, args, model, opt, xs, ys)
    value = float(loss)  # the one wait for the GPU, at the end
    t2 = time.perf_counter()
    if args.check:
        seconds = {"setup": round(t1 - t0, 6), "loop": round(t2 - t1, 6), "steps": [round(e - t1, 6) for e in ends]}
        write_check(args.check, args, model, value, hist, hist_total, seconds)
    print(f"train: steps {args.steps} loss {value:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
