#!/usr/bin/env python3
"""Mutation testing of atomutil's CPU suite (docs/reliability.md, "Mutation testing").

usage: mutate.py [--list FILE] [--only ID[,ID...]] [--work DIR] [--jobs N] [--timeout S] [--keep]

Each mutation of the list (default tools/mutations.txt) is one small change to one source file:
its exact original text, which must occur exactly once in that file, replaced by other text.
The repository's files (tracked ones and untracked ones git does not ignore, as they are in the
working tree) are copied to WORK/src, never changed in place; WORK/build is configured once
(-DATOMUTIL_ENABLE_CUDA=OFF) and rebuilt incrementally for each mutant.  Per mutant: the change is
written into the copy, the suite built and run with ctest (the whole suite, or the tests the
list's `tests` line selects), and the original written back.  A mutant is killed when a test
fails (or times out), survives when every test passes, and is invalid when it does not build
(the list is wrong, not the tests).  The unmutated suite runs first and must pass.

Prints one line per mutant, then a markdown table (mutant, file, result, the tests that killed
it), and ends with exactly one line
  mutation: mutants M killed K survived S            (+ " invalid I" when some did not build)
Exit status 0 when every mutant was killed, 1 when one survived or did not build, 2 when the
list, the copy or the unmutated suite is wrong.

WORK defaults to a temporary directory removed at the end (--keep keeps it); with --work DIR the
copy and its build are kept there and reused by the next run (only changed files are rewritten,
so the rebuild stays incremental).  Standard library only; needs cmake, ctest, git, a C compiler,
and the suite's python3 and jq: the copy is configured with ATOMUTIL_REQUIRE_TEST_TOOLS=ON, so
that no mutant survives a test left out for a missing tool.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg, status=2):
    print("mutate.py: %s" % msg, file=sys.stderr)
    sys.exit(status)


def read_list(path):
    """Records of the list file: '[ID]' starts one, then 'key = value' lines (file, from, to,
    why, tests); a value is the rest of its line, verbatim, and may be empty (to =)."""
    muts, cur = [], None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.match(r"^\[([A-Za-z0-9_.-]+)\]$", line)
            if m:
                cur = {"id": m.group(1), "line": no}
                muts.append(cur)
                continue
            m = re.match(r"^(file|from|to|why|tests)\s*=(?: (.*))?$", line)
            if not m or cur is None:
                die("%s:%d: expected '[ID]' or 'key = value' (file, from, to, why, tests)" % (path, no))
            if m.group(1) in cur:
                die("%s:%d: '%s' given twice for %s" % (path, no, m.group(1), cur["id"]))
            cur[m.group(1)] = m.group(2) or ""
    seen = set()
    for mu in muts:
        for k in ("file", "from", "to", "why"):
            if k not in mu:
                die("%s:%d: mutation %s has no '%s'" % (path, mu["line"], mu["id"], k))
        if mu["id"] in seen:
            die("%s:%d: mutation %s listed twice" % (path, mu["line"], mu["id"]))
        seen.add(mu["id"])
        if not mu["from"] or mu["from"] == mu["to"]:
            die("%s:%d: mutation %s changes nothing" % (path, mu["line"], mu["id"]))
    return muts


def sync_copy(dst):
    """The working tree's files (tracked, and untracked not ignored) into dst; a file is only
    rewritten when its bytes differ, so that a reused build stays incremental."""
    out = subprocess.run(["git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         stdout=subprocess.PIPE, check=True).stdout
    n = 0
    for rel in out.decode().split("\0"):
        src = os.path.join(REPO, rel)
        if not rel or not os.path.isfile(src) or os.path.islink(src):
            continue
        d = os.path.join(dst, rel)
        with open(src, "rb") as f:
            data = f.read()
        if os.path.isfile(d):
            with open(d, "rb") as f:
                if f.read() == data:
                    n += 1
                    continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        with open(d, "wb") as f:
            f.write(data)
        shutil.copymode(src, d)
        n += 1
    return n


def run(cmd, log, timeout=None):
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return 124


def failed_tests(log):
    """Test names under ctest's 'The following tests FAILED:' (failures and timeouts)."""
    names, on = [], False
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("The following tests FAILED:"):
                on = True
                continue
            m = re.match(r"^\s+\d+ - (\S+) \(", line) if on else None
            if m:
                names.append(m.group(1))
    return names


def build_and_test(build, jobs, timeout, tests, log):
    """(status, failed test names): status 'built' and its ctest result, or 'nobuild'."""
    if run(["cmake", "--build", build, "-j%d" % jobs], log + ".build") != 0:
        return "nobuild", []
    cmd = ["ctest", "--test-dir", build, "-j%d" % jobs, "--timeout", str(timeout)]
    if tests:
        cmd += ["-R", tests]
    rc = run(cmd, log, timeout=timeout * 20)
    names = failed_tests(log)
    if rc != 0 and not names:
        names = ["(ctest exit %d)" % rc]
    return "built", names


def main():
    ap = argparse.ArgumentParser(description="mutation testing of the CPU suite (see the module docstring)")
    ap.add_argument("--list", default=os.path.join(REPO, "tools", "mutations.txt"))
    ap.add_argument("--only", help="comma-separated mutation ids")
    ap.add_argument("--work", help="directory for the source copy and its build (kept, reused)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per test")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    muts = read_list(args.list)
    if args.only:
        want = args.only.split(",")
        unknown = [w for w in want if w not in set(m["id"] for m in muts)]
        if unknown:
            die("no mutation %s in %s" % (", ".join(unknown), args.list))
        muts = [m for m in muts if m["id"] in want]
    for tool in ("cmake", "ctest", "git"):
        if not shutil.which(tool):
            die("%s not found" % tool)

    work = args.work or tempfile.mkdtemp(prefix="atomutil-mutate-")
    src, build, logs = (os.path.join(work, d) for d in ("src", "build", "logs"))
    os.makedirs(logs, exist_ok=True)
    start = time.time()
    try:
        nfiles = sync_copy(src)
        # every mutation must apply to the copy as it is: the original text exactly once
        originals = {}
        for mu in muts:
            path = os.path.join(src, mu["file"])
            if not os.path.isfile(path):
                die("mutation %s: no file %s" % (mu["id"], mu["file"]))
            if mu["file"] not in originals:
                with open(path) as f:
                    originals[mu["file"]] = f.read()
            n = originals[mu["file"]].count(mu["from"])
            if n != 1:
                die("mutation %s: the original text occurs %d times in %s, not once: %s"
                    % (mu["id"], n, mu["file"], mu["from"]))
        print("mutate.py: %d files copied to %s, %d mutants" % (nfiles, src, len(muts)), flush=True)
        cfg = ["cmake", "-S", src, "-B", build, "-DATOMUTIL_ENABLE_CUDA=OFF", "-DATOMUTIL_REQUIRE_TEST_TOOLS=ON"]
        if run(cfg, os.path.join(logs, "configure.log")) != 0:
            die("configuring the copy failed: %s" % os.path.join(logs, "configure.log"))
        status, failed = build_and_test(build, args.jobs, args.timeout, None, os.path.join(logs, "baseline.log"))
        if status != "built" or failed:
            die("the unmutated suite does not pass (%s): %s" % (", ".join(failed) or "build failed", logs))
        print("mutate.py: unmutated suite passes (%.0f s so far)" % (time.time() - start), flush=True)

        rows = []
        for mu in muts:
            path = os.path.join(src, mu["file"])
            orig = originals[mu["file"]]
            with open(path, "w") as f:
                f.write(orig.replace(mu["from"], mu["to"], 1))
            try:
                status, failed = build_and_test(build, args.jobs, args.timeout, mu.get("tests"),
                                                os.path.join(logs, mu["id"] + ".log"))
            finally:
                with open(path, "w") as f:
                    f.write(orig)
            result = "invalid" if status == "nobuild" else "killed" if failed else "SURVIVED"
            by = ", ".join(failed[:3]) + (" and %d more" % (len(failed) - 3) if len(failed) > 3 else "")
            rows.append((mu, result, by, len(failed)))
            print("%-8s %-28s %s%s" % (result, mu["id"], mu["why"], (" [" + by + "]") if by else ""), flush=True)
        # the copy ends as the working tree was: rebuild it so that a reused --work stays clean
        run(["cmake", "--build", build, "-j%d" % args.jobs], os.path.join(logs, "final-build.log"))
    finally:
        if not args.work and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        elif not args.work:
            print("mutate.py: kept %s" % work, file=sys.stderr)

    print("mutate.py: %d mutants in %.0f s" % (len(rows), time.time() - start))
    print()
    print("| mutant | file | change | result | killed by |")
    print("|---|---|---|---|---|")
    for mu, result, by, n in rows:
        print("| %s | %s | %s | %s | %s |" % (mu["id"], mu["file"], mu["why"].replace("|", "\\|"), result,
                                             ("%d: %s" % (n, by)) if n else "-"))
    print()
    killed = sum(1 for r in rows if r[1] == "killed")
    survived = sum(1 for r in rows if r[1] == "SURVIVED")
    invalid = sum(1 for r in rows if r[1] == "invalid")
    print("mutation: mutants %d killed %d survived %d%s" % (len(rows), killed, survived,
                                                            " invalid %d" % invalid if invalid else ""))
    return 0 if killed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
