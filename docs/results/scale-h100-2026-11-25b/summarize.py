#!/usr/bin/env python3
"""Summaries of ab/, phases/ and probe/ (bench/ has its own: scripts/bench_scale.py bench).
Usage: summarize.py [DIR]  (default: this file's directory)."""
import csv, json, os, re, statistics as st, sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def ab():
    print("ab/: HEAD 371124e (o) against the new code (n), 5 rotated reps; seconds, medians")
    rows = list(csv.reader(open(f"{d}/ab/j.csv")))
    wall = {(m, int(r)): float(t) for m, r, t, rc in rows}
    reps = sorted({r for _, r in wall})
    for m in ["P", "So", "Sn", "Co", "Cn"]:
        ss = [json.load(open(f"{d}/ab/c-{m}-{r}.json"))["seconds"] for r in reps]
        steps = [s["steps"] for s in ss]
        pair = [(wall[(m, r)] - wall[("P", r)]) / wall[("P", r)] * 100 for r in reps]
        code = [float(x) for r in reps for x in re.findall(r"([0-9.]+) s keeping kernels' code", open(f"{d}/ab/e-{m}-{r}.txt").read())]
        print(f"  {m:3} wall {st.median(wall[(m, r)] for r in reps):6.2f} pair {st.median(pair):5.1f} %"
              f"  setup {st.median(s['setup'] for s in ss):5.2f} loop {st.median(s['loop'] for s in ss):5.3f}"
              f"  step0 {st.median(x[0] for x in steps):.3f} steps2-9 {st.median(x[9] - x[1] for x in steps):.3f}"
              f" steps11-19 {st.median(x[19] - x[10] for x in steps):.3f}"
              + (f"  code-keeping {min(code):.3f}-{max(code):.3f} s" if code else ""))


def phases():
    seq = ["launch", "start", "imported", "loop-end", "main-end", "atexit-last", "done"]
    print("phases/: seconds between marks, medians of 4 reps (launch: the shell starts the command; start: Python "
          "runs train_t.py's first line; imported: torch imported; loop-end: the loop's last result; main-end: the "
          "end of main (these runs wrote no --check file); atexit-last: Python's last exit handler; done: the command returned)")
    for m in ["P", "S", "SO", "NE"]:
        v = []
        for r in range(4):
            ph = {a: float(b) for a, b in re.findall(r"PHASE (\S+) ([0-9.]+)", open(f"{d}/phases/e-{m}-{r}.txt").read())}
            v.append([ph[seq[i + 1]] - ph[seq[i]] for i in range(len(seq) - 1)])
        parts = ", ".join(f"{seq[i]}->{seq[i + 1]} {st.median(x[i] for x in v):.3f}" for i in range(len(seq) - 1))
        print(f"  {m:3} {parts}; total {st.median(sum(x) for x in v):.3f}")


def probe():
    print("probe/: microseconds per call of each PyTorch op before (A) and after (B) one bincount, medians of 3 runs")
    for prefix, modes in [("", "plain o1e1m1 o1e1m0 o1e0m1 o1e0m0 o0e1m1 o0e1m0 o0e0m1 o0e0m0".split()),
                          ("sync-", "plain once sel none".split())]:
        res = {}
        for m in modes:
            for r in range(3):
                t = open(f"{d}/probe/{prefix}{m}-{r}.txt").read().splitlines()
                js = [json.loads(l) for l in t if l.startswith("{")]
                if js:
                    res.setdefault(m, []).append(js[0])
        ops = [o for o in res["plain"][0]["A"] if not o.endswith("/sync")]
        print("  " + prefix + "runs".ljust(10) + "".join(f"{o[:10]:>16}" for o in ops))
        for m in modes:
            row = "".join(f"{st.median(r['A'][o] for r in res[m]):8.1f}{st.median(r['B'][o] for r in res[m]):8.1f}" for o in ops)
            print(f"  {prefix}{m:10}{row}")


ab()
phases()
probe()
