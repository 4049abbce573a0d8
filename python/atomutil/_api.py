"""The Python API of atomutil (docs/python.md): tables, one launch's evaluation, a counters file or
export read into records.  Every figure comes from atomutil's C library (libatomutil.so): this
module only converts arguments and parses the JSON it returns."""

import ctypes
import json
import threading

from . import _lib
from ._lib import AtomutilError

DEVICE_METRIC = "device__attribute_display_name"
SM_COUNT_METRIC = "device__attribute_multiprocessor_count"
CC_MAJOR_METRIC = "device__attribute_compute_capability_major"
CC_MINOR_METRIC = "device__attribute_compute_capability_minor"


def _fraction(pct, name):
    """A threshold in percent as the library's fraction (0: its default)."""
    if pct is None:
        return 0.0
    v = float(pct)
    if not (0 < v <= 1000):
        raise ValueError("%s must be a percentage above 0 and at most 1000, got %r" % (name, pct))
    return v / 100


def _cc(cc):
    """(major, minor) of a compute capability given as (9, 0), "9.0" or 9.0; (0, 0) for None."""
    if cc is None:
        return 0, 0
    if isinstance(cc, str):
        major, _, minor = cc.partition(".")
        return int(major), int(minor or 0)
    if isinstance(cc, (tuple, list)):
        return int(cc[0]), int(cc[1])
    major = int(cc)
    return major, int(round((float(cc) - major) * 10))


def _records(text):
    """The library's {"abi", "report", "why"} as Records (the report's launches as they are, the
    records with their why)."""
    doc = json.loads(text)
    report = doc["report"]
    launches = [dict(rec, why=why) for rec, why in zip(report.get("launches", []), doc["why"])]
    return Records(launches, report)


class Records(list):
    """The launches of a report: one dict per launch, as `atomutil-profile --json` writes them
    (launch_id, kernel, counters, model, verdict, flags, ...), each with `why`, the reason a launch
    has verdict unknown ("" otherwise).  `report` holds the whole document (its table, family,
    thresholds and launches)."""

    def __init__(self, launches=(), report=None):
        super().__init__(launches)
        self.report = report if report is not None else {"launches": list(launches)}

    def to_pandas(self):
        """The records as a pandas DataFrame, nested figures flattened ("model.util_pct")."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Records.to_pandas() needs pandas (pip install pandas); the records themselves are "
                              "plain dicts") from e
        return pandas.json_normalize(list(self), sep=".")


class Table:
    """A service-time table of one GPU (docs/table-format.md), loaded by the library."""

    def __init__(self, handle):
        self._handle = ctypes.c_void_p(handle)
        try:
            self.info = json.loads(_lib.call("au_abi_table_info", self._handle))
        except Exception:
            self.close()
            raise

    path = property(lambda self: self.info["path"])
    gpu_name = property(lambda self: self.info["gpu_name"])
    compute_capability = property(lambda self: self.info["compute_capability"])
    sm_count = property(lambda self: self.info["sm_count"])
    families = property(lambda self: list(self.info["families"]))
    other_gpu = property(lambda self: self.info["other_gpu"])
    # one dependent global load of a lone thread, SM cycles (docs/table-format.md); None where not measured
    l2_hit_latency_cycles = property(lambda self: self.info["l2_hit_latency_cycles"])
    dram_latency_cycles = property(lambda self: self.info["dram_latency_cycles"])
    # MATCH.ANY's SM cycles per distinct lane value, throughput and latency; None where not measured
    match_any_cycles_per_value = property(lambda self: self.info["match_any_cycles_per_value"])
    match_any_latency_cycles_per_value = property(lambda self: self.info["match_any_latency_cycles_per_value"])

    def close(self):
        if self._handle and self._handle.value:
            _lib.lib().au_abi_table_free(self._handle)
        self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<atomutil.Table %s (%s, %s)>" % (self.path, self.gpu_name, self.compute_capability)

    def evaluate(self, metrics, sm_count=None, device=None, cc=None, kernel=None, family=None, busy=None,
                 bound=None, significant=None, code=None):
        """One launch's counters {metric: value} (Nsight Compute's names, base units; the names
        `atomutil.metric_names()` lists, others are ignored) evaluated with this table.  sm_count,
        device and cc (as (9, 0) or "9.0") may come as arguments or as the device__attribute_*
        metrics.  family prices the non-CAS jobs (default add), busy is "saturated" (default) or
        "queue", bound and significant the verdicts' thresholds in percent.  code, the kernel's
        instructions as [(opcode, executions), ...] (executions None where not known; opcodes as
        SASS spells them, "ATOMS.POPC.INC.32"), prices the jobs by their opcodes as
        atomutil-profile --opcodes does.  Returns the launch's record, as read() does."""
        return self.evaluate_records(metrics, sm_count, device, cc, kernel, family, busy, bound, significant,
                                     code)[0]

    def evaluate_records(self, metrics, sm_count=None, device=None, cc=None, kernel=None, family=None, busy=None,
                         bound=None, significant=None, code=None):
        """evaluate() as Records of the one launch, whose .report is the document (table, family,
        thresholds)."""
        if not self._handle:
            raise AtomutilError("the table was closed", -4)
        values = dict(metrics)
        device = device if device is not None else values.pop(DEVICE_METRIC, None)
        values.pop(DEVICE_METRIC, None)
        if cc is None and CC_MAJOR_METRIC in values:
            cc = (values[CC_MAJOR_METRIC], values.get(CC_MINOR_METRIC, 0))
        if sm_count is not None:
            values[SM_COUNT_METRIC] = sm_count
        major, minor = _cc(cc)
        names = [n for n in values if n not in (CC_MAJOR_METRIC, CC_MINOR_METRIC)]
        nums = [float(values[n]) for n in names]
        c_names = (ctypes.c_char_p * len(names))(*[_lib.encode(n) for n in names])
        c_values = (ctypes.c_double * len(nums))(*nums)
        if not code:
            text = _lib.call("au_abi_evaluate", self._handle, c_names, c_values, len(names), _lib.encode(device),
                             major, minor, _lib.encode(kernel), _lib.encode(family), _lib.encode(busy),
                             _fraction(bound, "bound"), _fraction(significant, "significant"))
            return _records(text)
        code = list(code)
        counted = all(n is not None for _, n in code)
        c_ops = (ctypes.c_char_p * len(code))(*[_lib.encode(op) for op, _ in code])
        c_exec = (ctypes.c_double * len(code))(*[float(n) for _, n in code]) if counted else None
        text = _lib.call("au_abi_evaluate_code", self._handle, c_names, c_values, len(names), _lib.encode(device),
                         major, minor, _lib.encode(kernel), c_ops, c_exec, len(code), _lib.encode(family),
                         _lib.encode(busy), _fraction(bound, "bound"), _fraction(significant, "significant"))
        return _records(text)


def load_table(path=None, gpu=None, cc=None):
    """The table at path; without a path, the table of the GPU named gpu with compute capability
    cc, found as atomutil-profile finds it ($ATOMUTIL_TABLES_DIR, the installed tables, ...)."""
    if path is not None:
        return Table(_lib.call("au_abi_table_load", _lib.encode(path), handle=True))
    if cc is None:
        raise ValueError("load_table needs a path, or the GPU's compute capability (cc=(9, 0)) to find one")
    major, minor = _cc(cc)
    return Table(_lib.call("au_abi_table_find", _lib.encode(gpu), major, minor, handle=True))


_found = {}
_found_lock = threading.Lock()


def find_table(gpu, cc):
    """load_table(gpu=gpu, cc=cc), once per GPU name and compute capability (kept for later calls)."""
    key = (gpu or "", _cc(cc))
    with _found_lock:
        if key not in _found:
            _found[key] = load_table(gpu=gpu, cc=cc)
        return _found[key]


def evaluate(metrics, table=None, **kwargs):
    """Table.evaluate with table (a Table or a path), or the table of the launch's GPU (its
    device name and compute capability, as arguments device= and cc= or as metrics)."""
    if table is None:
        device = kwargs.get("device") or metrics.get(DEVICE_METRIC)
        cc = kwargs.get("cc")
        if cc is None and CC_MAJOR_METRIC in metrics:
            cc = (metrics[CC_MAJOR_METRIC], metrics.get(CC_MINOR_METRIC, 0))
        if cc is None:
            raise ValueError("evaluate needs a table, or the GPU's compute capability (cc=(9, 0), or the metrics "
                             "%s and %s) to find one" % (CC_MAJOR_METRIC, CC_MINOR_METRIC))
        table = find_table(device, cc)
    elif not isinstance(table, Table):
        table = load_table(table)
    return table.evaluate(metrics, **kwargs)


def read(path, table=None, family=None, busy=None, bound=None, significant=None, opcodes=None):
    """A counters file (a live run's) or an Nsight Compute CSV export read and evaluated as
    `atomutil-profile --import PATH --json` does: Records, one dict per launch.  table is a Table
    or a path (default: the table of the GPU the file names); opcodes None prices each job by its
    opcode where the file's kernel code is there (PATH's .cubins/) unless family is given, False
    never, True requires the code."""
    if table is not None and not isinstance(table, Table):
        table = load_table(table)
    handle = table._handle if table is not None else None
    mode = -1 if opcodes is None else 1 if opcodes else 0
    text = _lib.call("au_abi_read", _lib.encode(path), handle, _lib.encode(family), _lib.encode(busy),
                     _fraction(bound, "bound"), _fraction(significant, "significant"), mode)
    return _records(text)


def metrics(metric_set=None):
    """The metrics atomutil reads (dicts: name, required, sets, ncu, unit, meaning); metric_set
    ("standard", "cluster", "generic", "dsmem": docs/counters.md) keeps those of one counter set.
    ncu is False for the one Nsight Compute reports by itself (its replay passes)."""
    defs = json.loads(_lib.call("au_abi_metrics"))
    if metric_set is not None:
        known = sorted({s for d in defs for s in d["sets"]})
        if metric_set not in known:
            raise ValueError("metric_set is one of %s, not %r" % (", ".join(known), metric_set))
        defs = [d for d in defs if metric_set in d["sets"]]
    return defs


def metric_names(metric_set=None):
    """The names of the metrics(metric_set) that Nsight Compute collects when asked, in the order of
    `atomutil-profile --print-ncu-metrics`: the list for `ncu --metrics`."""
    return [d["name"] for d in metrics(metric_set) if d["ncu"]]


def library_path():
    """The path of the loaded libatomutil.so."""
    return _lib.path()


def library_version():
    """atomutil's version as the library says it."""
    return _lib.lib().au_abi_atomutil_version().decode()

