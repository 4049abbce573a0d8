#!/usr/bin/env python3
"""The house's dependencies as built, and the two rules CODING.md sets for them.

    tools/link_graph.py [BUILD_DIR] [--edges]

Links: every object file of the project's libraries and programs under BUILD_DIR (default build;
tests left out) is a node; A -> B when A uses a symbol that B defines (`nm`: A's undefined
symbols against the others' defined ones; a file's static functions are its own).  A circle is a
set of objects that use each other in a loop.  Includes: every `#include "..."` of the sources
under model/, calibrate/, profile/ and examples/, by the folder that holds the header (the path
beside the including file, else every folder holding a header of that name).  Rules (CODING.md,
"Where things go"): nothing points out of model/ (model/ uses and includes only model/);
calibrate/ and profile/ never use or include each other; examples/ use nothing of atomutil and
include only the headers named in EXAMPLES_MAY_INCLUDE; validation/, bench/, probes/, tools/ and
tests/ stand beside the product: they may use anything, and nothing of the product or examples/
uses or includes them.  --edges prints each link A -> B (by source path) with the symbols.
Last line:
    links: objects N edges E circles C layering L
Exit status 0 when C = L = 0, 1 otherwise, 2 on bad usage or without `nm` or objects.
"""
import collections
import glob
import os
import re
import subprocess
import sys

PRODUCT = ("model", "calibrate", "profile")
BESIDE = ("validation", "bench", "probes", "tools", "tests")
CHECKED = PRODUCT + ("examples",)  # the folders whose includes are checked
EXAMPLES_MAY_INCLUDE = ("calibrate/kernels/cuda_check.h",)  # the product headers examples/ may include


def wing(path):
    """The top folder of a path relative to the repository ("examples", "model", ...)."""
    return path.split("/", 1)[0]


def allowed(src, dst):
    """May folder src depend on folder dst?  model/ only on itself; calibrate/ and profile/ on
    themselves and model/; examples/ on nothing of atomutil; the folders beside the product on
    anything, and nothing else on them.  Other folders (tables/, docs/) are not ruled."""
    if src == dst or src in BESIDE:
        return True
    if dst in BESIDE or dst == "examples":
        return src not in CHECKED
    if dst not in PRODUCT or src not in CHECKED:
        return True
    return src in ("calibrate", "profile") and dst == "model"


def objects(build, root):
    """{object path: source path relative to the repository}, from CMake's object layout (objects
    of sources no longer in the tree, left by an older build, are skipped)."""
    out = {}
    for o in glob.glob(os.path.join(build, "**", "CMakeFiles", "**", "*.o"), recursive=True):
        rel = os.path.relpath(o, build)
        if rel.startswith("tests/") or "CompilerId" in rel:
            continue
        top = rel.split("/CMakeFiles/", 1)[0]
        inner = rel.split(".dir/", 1)[1] if ".dir/" in rel else os.path.basename(rel)
        src = os.path.normpath(os.path.join(top, inner[:-2]))
        if os.path.exists(os.path.join(root, src)):
            out[o] = src
    return out


def symbols(obj):
    """(defined, undefined) global symbols of one object file."""
    r = subprocess.run(["nm", obj], capture_output=True, text=True, check=True)
    defined, undefined = set(), set()
    for line in r.stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRGSVW":
            defined.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            undefined.add(p[1])
    return defined, undefined


def circles(graph, nodes):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def include_violations(root):
    """'#include "x.h"' lines of model/, calibrate/, profile/ and examples/ naming a header that
    only a folder they may not depend on holds."""
    headers = collections.defaultdict(set)  # basename -> folders holding it
    sources = []
    for w in CHECKED + BESIDE:
        for path in glob.glob(os.path.join(root, w, "**", "*"), recursive=True):
            if not os.path.isfile(path):
                continue
            rel = os.path.relpath(path, root)
            if re.search(r"\.(h|cuh|def)$", rel):
                headers[os.path.basename(rel)].add(w)
            if w in CHECKED and re.search(r"\.(c|cu|h|cuh)$", rel):
                sources.append(rel)
    bad = []
    for rel in sorted(sources):
        src = wing(rel)
        with open(os.path.join(root, rel), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                beside = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(1)))
                if os.path.isfile(os.path.join(root, beside)):
                    holders = {wing(beside)}
                else:
                    beside = None
                    holders = headers.get(os.path.basename(m.group(1)), set())
                if src == "examples":
                    ok = holders <= {"examples"} or beside in EXAMPLES_MAY_INCLUDE
                else:
                    ok = not holders or any(allowed(src, h) for h in holders)
                if not ok:
                    bad.append(f"{rel}:{n}: includes {m.group(1)} ({'/'.join(sorted(holders))}/)")
    return bad


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = [a for a in argv if a.startswith("--")]
    if len(args) > 1 or any(o not in ("--edges",) for o in opts):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    build = args[0] if args else "build"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    objs = objects(build, root)
    if not objs:
        print(f"link_graph: no object files under {build}/ (build first)", file=sys.stderr)
        return 2
    try:
        syms = {o: symbols(o) for o in objs}
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"link_graph: nm: {e}", file=sys.stderr)
        return 2
    definer = collections.defaultdict(set)
    for o, (d, _) in syms.items():
        for s in d:
            definer[s].add(o)
    graph = collections.defaultdict(set)
    via = collections.defaultdict(set)
    for o, (_, u) in syms.items():
        for s in u:
            for d in definer.get(s, ()):
                if d != o:
                    graph[o].add(d)
                    via[(o, d)].add(s)
    edges = sum(len(v) for v in graph.values())
    if "--edges" in opts:
        for (a, b), s in sorted(via.items(), key=lambda kv: (objs[kv[0][0]], objs[kv[0][1]])):
            print(f"{objs[a]} -> {objs[b]}: {' '.join(sorted(s)[:6])}{' ...' if len(s) > 6 else ''}")
    found = circles(graph, sorted(objs))
    for comp in found:
        print("circle: " + ", ".join(objs[o] for o in comp))
    layering = []
    for (a, b), s in sorted(via.items()):
        if not allowed(wing(objs[a]), wing(objs[b])):
            layering.append(f"{objs[a]} uses {', '.join(sorted(s)[:3])} of {objs[b]}")
    layering += include_violations(root)
    for line in layering:
        print("layering: " + line)
    print(f"links: objects {len(objs)} edges {edges} circles {len(found)} layering {len(layering)}")
    return 1 if found or layering else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
