#!/usr/bin/env python3
"""What ncu says of a report it cannot read (issue 38, docs/nsight-compute.md): each of a report's
bytes 4..47 raised by 1 and by 64 in a copy, `ncu --import COPY --csv --page raw` run on each, and
one line per copy: byte, added value, exit status, ncu's error lines.  Byte 4 starts the 32-bit
field after `NVR\\0`; raised, it makes ncu refuse the copy as a report of another version, which
is how a report of a newer Nsight Compute reaches an older ncu.

usage: ncu_report_version.py REPORT.ncu-rep OUT_DIR      (needs ncu; no GPU)
"""
import os
import subprocess
import sys


def main():
    src, out = sys.argv[1], sys.argv[2]
    data = open(src, "rb").read()
    copy = os.path.join(out, "patched.ncu-rep")
    lines = []
    for pos in range(4, 48):
        for delta in (1, 0x40):
            b = bytearray(data)
            b[pos] = (b[pos] + delta) & 0xFF
            with open(copy, "wb") as f:
                f.write(b)
            r = subprocess.run(["ncu", "--import", copy, "--csv", "--page", "raw"], capture_output=True, text=True,
                               timeout=60)
            err = [l for l in (r.stderr + r.stdout).splitlines() if "ERROR" in l or "version" in l.lower()]
            lines.append("%d +%d rc=%d %s" % (pos, delta, r.returncode, " | ".join(err)[:300]))
    with open(os.path.join(out, "patch_probe.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
