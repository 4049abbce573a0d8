"""Where the later steps' cost comes from (issue 21): one process of examples/python/train.py's
model, timed on the host before and after a measured step, so the program's own scatter between
processes (CUDA's start, imports) drops out.

  python3 probes/later_steps_probe.py OUT.json [--steps N] [--ops N]

Phases, each after 20 warm steps: "before" (N training steps, each timed on the host clock; then
three bursts of --ops tiny kernels, x.add_(1), timed while they are enqueued and until the GPU has
run them), then one step between torch.cuda.profiler.start() and stop() with a torch.bincount in it
(the one kernel with shared atomics, at::cuda::kernelHistogram1D), then "after", the same as
"before".  Run it alone and under atomutil-profile --profile-from-start off (with -k and
--launch-count as wanted): after - before is what the profiler left behind.  Writes OUT.json with
each phase's step times and the medians; prints one line:
  probe: before-ms B after-ms A enqueue-us E0 E1 gpu-us G0 G1
(the medians of a step, of one tiny kernel's enqueue and of its run, before and after).
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--ops", type=int, default=300)
    a = p.parse_args()
    import torch
    import train as T

    args = argparse.Namespace(seed=0, layers=12, device="cuda")
    model, opt, xs, ys = T.build(torch, args)

    def step(i, hist=False):
        x, y = xs[i % T.POOL], ys[i % T.POOL]
        loss = torch.nn.functional.cross_entropy(T.forward(torch, model, x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if hist:
            torch.bincount(x.flatten(), minlength=T.VOCAB)
        return loss

    small = torch.zeros(16, device="cuda")

    def phase(n):
        steps = []
        for i in range(n):
            t0 = time.perf_counter()
            step(i)
            steps.append(time.perf_counter() - t0)
            if i % 10 == 9:
                torch.cuda.synchronize()  # as train.py's bincount every 10 steps
        torch.cuda.synchronize()
        enq, run = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(a.ops):
                small.add_(1)
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            enq.append((t1 - t0) / a.ops)
            run.append((t2 - t0) / a.ops)
        return {"steps": steps, "enqueue": enq, "run": run}

    for i in range(20):
        step(i)
    torch.cuda.synchronize()
    before = phase(a.steps)
    torch.cuda.profiler.start()
    step(0, hist=True)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    after = phase(a.steps)
    med = {k: {"step_ms": statistics.median(v["steps"]) * 1e3, "enqueue_us": statistics.median(v["enqueue"]) * 1e6,
               "run_us": statistics.median(v["run"]) * 1e6} for k, v in (("before", before), ("after", after))}
    with open(a.out, "w") as f:
        json.dump({"before": before, "after": after, "medians": med}, f)
    b, af = med["before"], med["after"]
    print(f"probe: before-ms {b['step_ms']:.3f} after-ms {af['step_ms']:.3f} enqueue-us {b['enqueue_us']:.2f} "
          f"{af['enqueue_us']:.2f} gpu-us {b['run_us']:.2f} {af['run_us']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
