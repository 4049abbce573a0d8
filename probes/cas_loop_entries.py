#!/usr/bin/env python3
"""Entries and attempts of every CAS loop of each kernel launch in an ncu source page (issue 37):
`ncu --import R --page source --csv --print-source sass` (probes/cas_loop_entries.sh).  A CAS loop
is an ATOMS.CAST.SPIN or ATOMS.CAS followed by a branch back to an address at or before it; its
entries are the executions of the instruction before the loop's first one, its attempts those of
the CAS (warp-level; thread-level beside them).  The raw page's shared-atomic instruction count
of each launch is printed beside it.

    cas_loop_entries.py SOURCE_CSV RAW_CSV
"""
import csv
import re
import sys


def pages(path):
    """Every launch's page of the source CSV, in order (ncu 2025.3 may print each twice)."""
    out, cur = [], None
    for r in csv.reader(open(path, newline="")):
        if not r:
            continue
        if r[0] == "Kernel Name":
            cur = {"name": r[1], "rows": []}
            out.append(cur)
        elif r[0] == "Address" and cur is not None:
            cur["hdr"] = r
        elif cur is not None and "hdr" in cur:
            cur["rows"].append(r)
    return out


def blocks(path):
    out = pages(path)
    # ncu 2025.3 prints each launch's page twice in a row: keep one
    return [b for i, b in enumerate(out) if i == 0 or b["rows"] != out[i - 1]["rows"]]


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


def loops(b):
    h = b["hdr"]
    ie, te = h.index("Instructions Executed"), h.index("Thread Instructions Executed")
    rows = b["rows"]
    addr = [int(r[0], 16) for r in rows]
    for i, r in enumerate(rows):
        if not re.search(r"\bATOMS\.CAS", r[1]):
            continue
        for j in range(i + 1, min(i + 6, len(rows))):
            m = re.search(r"\bBRA\s+(0x[0-9a-f]+)", rows[j][1])
            if m and int(m.group(1), 16) <= addr[i]:
                head = addr.index(int(m.group(1), 16))
                yield r[1].split()[0] if not r[1].startswith("@") else r[1], num(rows[head - 1][ie]), \
                    num(r[ie]), num(r[te]), rows[head - 1][1].strip()
                break


def main():
    src, raw = sys.argv[1], sys.argv[2]
    counts = [num(r[-1]) for r in csv.reader(open(raw, newline="")) if r and r[0].isdigit()]
    print("launch,kernel,loop,entries,attempts,attempts_per_entry,thread_attempts,before_loop,"
          "raw_shared_atom_inst")
    for k, b in enumerate(blocks(src)):
        for n, (op, entries, att, tatt, before) in enumerate(loops(b)):
            print("%d,%s,%d,%.0f,%.0f,%.2f,%.0f,%s,%s" % (
                k, b["name"].split("(")[0], n, entries, att, att / entries if entries else 0, tatt,
                before.split()[0], "%.0f" % counts[k] if k < len(counts) else ""))


if __name__ == "__main__":
    main()
