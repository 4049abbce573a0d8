#!/usr/bin/env python3
"""func_lengths.py - the length of every C, C++ and CUDA function in the project's sources, longest
first; functions over the limit are listed (CODING.md: none over 120 lines outside generated
tables).  The project's style puts a function body's braces alone at column 0, which is what this
reads (header lines above the '{', through the '}').
  tools/func_lengths.py [--limit N] [--top K] [--fail] [PATH ...]   (default: the source dirs)
Prints 'functions F over-limit O (limit N)' last; with --fail, exit 1 when O > 0."""
import argparse
import os
import re
import sys

DIRS = ["model", "calibrate", "profile", "examples", "tests", "bench", "validation", "probes", "tools"]
EXT = (".c", ".h", ".cu", ".cuh", ".cpp")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_:~]*)\s*\(")


def functions(path):
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "{" and i > 0:
            start = i - 1
            while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith((";", "}", "*/")) \
                    and not lines[start - 1].startswith(("#", "//", " *", "/*")):
                start -= 1
            header = " ".join(l.strip() for l in lines[start:i])
            m = NAME.search(header)
            end = i + 1
            while end < len(lines) and lines[end].rstrip() != "}":
                end += 1
            if m and "=" not in header.split("(")[0]:
                yield m.group(1), start + 1, end - start + 1
            i = end
        i += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=120)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--fail", action="store_true")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = a.paths or [os.path.join(root, d) for d in DIRS]
    found = []
    for p in paths:
        files = [p] if os.path.isfile(p) else [os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs]
        for f in sorted(files):
            if f.endswith(EXT):
                for name, line, n in functions(f):
                    found.append((n, os.path.relpath(f, root), line, name))
    found.sort(reverse=True)
    over = [x for x in found if x[0] > a.limit]
    for n, f, line, name in (over if len(over) > a.top else found[: a.top]):
        print(f"{n:5d}  {f}:{line}  {name}{'  OVER' if n > a.limit else ''}")
    print(f"functions {len(found)} over-limit {len(over)} (limit {a.limit})")
    return 1 if a.fail and over else 0


if __name__ == "__main__":
    sys.exit(main())
