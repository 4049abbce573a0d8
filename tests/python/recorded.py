"""Recorded inputs of the Python tests: the launches of a recorded Nsight Compute CSV export or
counters file as the metric values a profiler holds (base units), and atomutil-profile's own JSON
report of the same file, to compare against.

    launches(path) -> [Launch]     report(profile, path, *options) -> dict or None
"""

import csv
import gzip
import json
import os
import shutil
import subprocess
import tempfile

CC_MAJOR = "device__attribute_compute_capability_major"
CC_MINOR = "device__attribute_compute_capability_minor"
DEVICE = "device__attribute_display_name"
DURATION = "gpu__time_duration.sum"
TIME_UNITS = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
PREFIXES = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


class Launch:
    def __init__(self, pid, launch_id, kernel):
        self.pid, self.id, self.kernel = pid, launch_id, kernel
        self.metrics = {}


def _value(metric, unit, text):
    """A metric's value in its base unit, as Nsight Compute keeps it (the export prints it scaled)."""
    v = float(text.replace(",", ""))
    if metric == DURATION and unit:
        return v * TIME_UNITS[unit]
    if len(unit) > 1 and unit[0] in PREFIXES and "/" not in unit:
        return v * PREFIXES[unit[0]]
    return v


def _lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        for line in f:
            if line.startswith('"'):  # CSV rows; ncu's and atomutil's own lines around them are not
                yield line


def launches(path):
    """The export's launches in the order they first appear, each with its metrics {name: value}
    (the device name a str, the compute capability as the two device__attribute metrics)."""
    rows = csv.reader(_lines(path))
    header, found = None, {}
    for row in rows:
        if row and row[0] == "ID":
            header = {name: i for i, name in enumerate(row)}
            continue
        get = lambda col: row[header[col]] if col in header else ""
        key = (get("Process ID"), get("ID"))
        launch = found.get(key)
        if launch is None:
            launch = found[key] = Launch(int(key[0]) if key[0] else -1, int(key[1]), get("Kernel Name"))
            if get("CC"):
                major, minor = get("CC").split(".")
                launch.metrics[CC_MAJOR], launch.metrics[CC_MINOR] = float(major), float(minor)
        metric, unit, text = get("Metric Name"), get("Metric Unit"), get("Metric Value")
        if text == "n/a":
            continue
        launch.metrics[metric] = text if metric == DEVICE else _value(metric, unit, text)
    return list(found.values())


def unpacked(path, work):
    """path, or its copy without .gz in work (with its .cubins.tar.gz, if any, unpacked beside it)."""
    if not path.endswith(".gz"):
        return path
    out = os.path.join(work, os.path.basename(path)[:-3])
    with gzip.open(path, "rb") as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    cubins = path[: -len(".counters.csv.gz")] + ".cubins.tar.gz"
    if path.endswith(".counters.csv.gz") and os.path.exists(cubins):
        subprocess.run(["tar", "-xzf", cubins, "-C", work], check=True)
    return out


def report(profile, path, *options):
    """atomutil-profile --import path --json -q [options] parsed, or None where it exits non-zero."""
    r = subprocess.run([profile, "--import", path, "--json", "-q", *options], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None


def workdir():
    return tempfile.mkdtemp(prefix="atomutil-pytest-")
