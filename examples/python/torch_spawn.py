"""A PyTorch program that starts CUDA child processes (torch.multiprocessing with the spawn start
method, as data loaders and multi-GPU training do): the parent and WORKERS children each count a
histogram with torch.bincount on GPU (rank % GPUs).  atomutil-profile reports every process's
launches (one line per process under the report's table); tests/device/child_processes.sh checks
that nothing is lost.
Run: atomutil-profile -- python3 examples/python/torch_spawn.py [WORKERS]
"""
import sys

import torch
import torch.multiprocessing as mp


def work(rank, n, out):
    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.manual_seed(rank)
    data = torch.randint(0, 256, (n,), device=dev, dtype=torch.int64)
    h = torch.bincount(data, minlength=256)
    torch.cuda.synchronize(dev)
    total = int(h.sum().item())
    assert total == n, f"rank {rank}: histogram lost counts"
    out.put((rank, str(dev), total))


def main():
    if not torch.cuda.is_available():
        sys.exit("torch_spawn: no CUDA device")
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    n = 1 << 20
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=work, args=(r + 1, n, q)) for r in range(workers)]
    for p in procs:
        p.start()
    work(0, n, q)  # the parent's own share
    results = sorted(q.get() for _ in range(workers + 1))
    for p in procs:
        p.join()
        assert p.exitcode == 0, f"a worker exited {p.exitcode}"
    for rank, dev, total in results:
        print(f"rank {rank} on {dev}: {total} counted")
    print(f"torch_spawn: ok ({workers + 1} processes)")


if __name__ == "__main__":
    main()
