"""The logic of Nsight Compute's rule AtomicUnit (python/ncu/AtomicUnit.py, installed in
share/atomutil/ncu with its section; docs/nsight-compute.md): per profiled kernel launch, the
metrics atomutil reads are taken from the report, evaluated by atomutil's library (one model: the
figures are atomutil-profile's) with the table of the launch's GPU, and the result is written
back: a message with U, its range and the verdict, a focus metric where the unit limits, and
atomutil__* metrics.  It fails soft: whatever goes wrong becomes one rule message.

It uses only the NvRules calls that Nsight Compute's own rules use, on the module passed in, so
that a test can pass a stand-in (tests/python/fake_nvrules.py).
"""

from . import _api
from ._lib import AtomutilError

RULE_ID = "AtomicUnit"
SECTION_ID = "AtomicUnit"
PREFIX = "atomutil__"
# the per-instruction counts of ncu's SourceCounters section, instanced by the instructions' addresses
SASS_COUNTS = "inst_executed"
# the executions per opcode (--set full), instanced by the opcodes: what atomutil-profile --import
# reads from such a report, so the rule prices by it first
SASS_OPCODES = "sass__inst_executed_per_opcode_with_modifier_all"
# the model's figures written as metrics of the launch: atomutil__<key>
DOUBLE_METRICS = ("util_pct", "util_pct_lo", "util_pct_hi", "util_pct_busiest_sm", "a_passes_per_job",
                  "jobs_per_sm", "queue_len", "service_cycles", "busy_cycles", "active_cycles")
HINT = ("collect the section AtomicUnit (ncu --section-folder SHARE/atomutil/ncu --section AtomicUnit), or the "
        "metrics of `atomutil-profile --print-ncu-metrics`")

_table_errors = {}


def _constant(nvrules, owner, name, fallback):
    """NvRules' constant owner.name (IFrontend.MsgType_MSG_OK, ...), or the module's fallback name
    (the newer spelling), or None."""
    holder = getattr(nvrules, owner, None)
    for obj, attr in ((holder, name), (nvrules, fallback)):
        if obj is not None and hasattr(obj, attr):
            return getattr(obj, attr)
    return None


def _message(nvrules, fe, kind, text):
    """A frontend message of kind OK, WARNING or OPTIMIZATION; its id."""
    fallback = {"OK": "MsgType_OK", "WARNING": "MsgType_WARNING", "OPTIMIZATION": "MsgType_OPTIMIZATION"}[kind]
    msg_type = _constant(nvrules, "IFrontend", "MsgType_MSG_" + kind, fallback)
    return fe.message(text) if msg_type is None else fe.message(msg_type, text)


def _metric_value(metric, text):
    if metric is None:
        return None
    try:
        if not metric.has_value():
            return None
    except AttributeError:
        pass
    return metric.as_string() if text else metric.as_double()


def action_metrics(action):
    """The metrics atomutil reads that the action holds, {name: value} (the device name a str)."""
    values = {}
    for name in _api.metric_names() + [_api.CC_MAJOR_METRIC, _api.CC_MINOR_METRIC]:
        v = _metric_value(action.metric_by_name(name), name == _api.DEVICE_METRIC)
        if v is not None:
            values[name] = v
    return values


def _table(device, cc):
    key = (device or "", cc)
    if key in _table_errors:
        raise _table_errors[key]
    try:
        return _api.find_table(device, cc)
    except AtomutilError as e:
        _table_errors[key] = e
        raise


def _kernel_name(nvrules, action):
    base = _constant(nvrules, "IAction", "NameBase_DEMANGLED", "NameBase_DEMANGLED")
    try:
        return action.name() if base is None else action.name(base)
    except Exception:
        return None


def _instance_value(metric, i):
    for get in ("as_double", "as_uint64"):
        if hasattr(metric, get):
            return float(getattr(metric, get)(i))
    return None


def _code_by_opcode(action):
    """[(ATOM* opcode, executions)] from the executions per opcode, else None."""
    try:
        metric = action.metric_by_name(SASS_OPCODES)
        if metric is None or not metric.has_correlation_ids():
            return None
        ids = metric.correlation_ids()
        code = [(ids.as_string(i), _instance_value(metric, i)) for i in range(metric.num_instances())]
        return [(op, n) for op, n in code if isinstance(op, str) and op.startswith("ATOM")] or None
    except Exception:  # not there, or not as expected: the per-instruction counts, else one family
        return None


def action_code(action):
    """The launch's atomic opcodes [(SASS opcode, executions)] where the report holds them: the
    executions per opcode (--set full; as atomutil-profile --import reads them), else the SASS and
    per-instruction counts (ncu's SourceCounters section), else None."""
    code = _code_by_opcode(action)
    if code:
        return code
    try:
        metric = action.metric_by_name(SASS_COUNTS)
        if metric is None or not metric.has_correlation_ids():
            return None
        pcs = metric.correlation_ids()
        code = []
        for i in range(metric.num_instances()):
            words = [w for w in action.sass_by_pc(pcs.as_uint64(i)).split() if not w.startswith("@")]
            if words and words[0].startswith("ATOM"):
                code.append((words[0], _instance_value(metric, i)))
        return code
    except Exception:  # no SASS: priced as an export is, by one family
        return None


def evaluate_action(nvrules, action):
    """The launch's record (atomutil.read's) and its report ({table, family, thresholds_pct, ...})."""
    values = action_metrics(action)
    if _api.CC_MAJOR_METRIC not in values:
        raise AtomutilError("the report lacks %s, which picks atomutil's table: %s" % (_api.CC_MAJOR_METRIC, HINT))
    device = values.get(_api.DEVICE_METRIC)
    cc = (int(values[_api.CC_MAJOR_METRIC]), int(values.get(_api.CC_MINOR_METRIC, 0)))
    records = _table(device, cc).evaluate_records(values, kernel=_kernel_name(nvrules, action),
                                                  code=action_code(action))
    return records[0], records.report


def _pct(v):
    return "%.1f %%" % v


def describe(rec, report):
    """(message kind, text) of an evaluated launch."""
    m, verdict = rec["model"], rec["verdict"]
    thr = report["thresholds_pct"]
    table = report["table"]["path"].rsplit("/", 1)[-1] if report.get("table") else "?"
    if verdict == "unknown":
        why = rec.get("why") or "see its flags: " + ", ".join(rec["flags"])
        return "WARNING", "atomutil could not evaluate this launch: %s. To give it every metric it reads, %s." % (
            why, HINT)
    if not m["busy_cycles"] and not rec["counters"].get("jobs"):
        return "OK", "This launch ran no shared-memory atomic instruction: the shared atomic unit was idle."
    u = m["util_pct"]
    text = "The shared-memory atomic unit was busy %s of the SMs' active cycles (U, the mean SM's" % _pct(u)
    if m.get("util_pct_lo") is not None and m.get("util_pct_hi") is not None:
        text += "; between %s and %s where the counters leave it open" % (_pct(m["util_pct_lo"]),
                                                                          _pct(m["util_pct_hi"]))
    text += ")"
    if m.get("util_pct_busiest_sm") is not None:
        text += ", the most utilized SM at least %s" % _pct(m["util_pct_busiest_sm"])
    kind, said = {
        "atomic-bound": ("OPTIMIZATION", "atomic-bound (U of at least %g %%): the unit limits this kernel"
                         % thr["atomic_bound"]),
        "significant": ("WARNING", "significant (U of at least %g %%, below %g %%)"
                        % (thr["significant"], thr["atomic_bound"])),
        "uncertain": ("WARNING", "uncertain (the range spans more than one verdict)"),
    }.get(verdict, ("OK", "not-limiting (U below %g %%)" % thr["significant"]))
    text += ": %s." % said
    if m.get("util_pct_dsmem") is not None:
        text += " Distributed shared memory (clusters): the local unit %s, the path to other SMs %s." % (
            _pct(m["util_pct_local"]), _pct(m["util_pct_dsmem"]))
    if m["jobs_per_sm"]:
        text += " Each shared atomic instruction took a = %.1f serialized passes of the unit, S = %.1f cycles of " \
                "its time." % (m["a_passes_per_job"], m["service_cycles"])
    if rec.get("opcodes") and rec["opcodes"].get("classes"):
        text += " Jobs by opcode class (from the report's instruction counts): %s." % rec["opcodes"]["classes"]
    if rec["flags"]:
        text += " Flags: %s." % ", ".join(rec["flags"])
    cure = best_cure(rec)
    if cure and verdict in ("atomic-bound", "significant", "uncertain"):
        w = cure["whatif"]
        text += " What would help most: %s; the unit's busy time %+.0f %%, the kernel's active cycles %.0f " \
                "(between %.0f and %.0f), %.1f %% fewer (atomutil's advisor)." % (
                    cure["words"], 100 * (w["busy_cycles"] - m["busy_cycles"]) / m["busy_cycles"],
                    w["active_cycles"], w["active_cycles_lo"], w["active_cycles_hi"], w["speedup_pct"])
    text += " atomutil's queue model, table %s, family %s." % (table, report["family"])
    return kind, text


def best_cure(rec):
    """The launch's best cure from its record: {name, words, whatif{...}}, or None without one."""
    adv = rec.get("advice")
    if not adv or adv.get("best") not in adv.get("whatif", {}):
        return None
    return {"name": adv["best"], "words": adv.get("best_words", adv["best"]), "whatif": adv["whatif"][adv["best"]]}


def publish(nvrules, fe, action, rec, report):
    """The message, the focus metric and the atomutil__* metrics of an evaluated launch."""
    kind, text = describe(rec, report)
    msg_id = _message(nvrules, fe, kind, text)
    m = rec["model"]
    double_kind = _constant(nvrules, "IMetric", "ValueKind_DOUBLE", "ValueKind_DOUBLE")
    string_kind = _constant(nvrules, "IMetric", "ValueKind_STRING", "ValueKind_STRING")
    for key in DOUBLE_METRICS:
        if m.get(key) is not None:
            action.add_double_metric(PREFIX + key, double_kind, float(m[key]))
    action.add_string_metric(PREFIX + "verdict", string_kind, rec["verdict"])
    action.add_string_metric(PREFIX + "flags", string_kind, ",".join(rec["flags"]))
    cure = best_cure(rec)
    if cure:
        action.add_string_metric(PREFIX + "best_cure", string_kind, cure["name"])
        action.add_double_metric(PREFIX + "speedup_pct", double_kind, float(cure["whatif"]["speedup_pct"]))
        if rec["verdict"] in ("atomic-bound", "significant", "uncertain"):
            # ncu's estimated speedup: the share of this kernel's time the cure would save
            local = _constant(nvrules, "IFrontend", "SpeedupType_LOCAL", "SpeedupType_LOCAL")
            if local is not None:
                fe.speedup(msg_id, local, float(cure["whatif"]["speedup_pct"]))
    if rec["verdict"] in ("atomic-bound", "significant") and m.get("util_pct") is not None:
        high = rec["verdict"] == "atomic-bound"
        severity = _constant(nvrules, "IFrontend", "Severity_SEVERITY_HIGH" if high else "Severity_SEVERITY_DEFAULT",
                             "Severity_SEVERITY_HIGH" if high else "Severity_SEVERITY_DEFAULT")
        fe.focus_metric(msg_id, PREFIX + "util_pct", float(m["util_pct"]), severity,
                        "U = busy cycles / active cycles of the SM's shared atomic unit (atomutil)")


def apply(nvrules, handle):
    """The rule on the profile result of handle; the launch's record, or None after a message that
    says why there is none."""
    ctx = nvrules.get_context(handle)
    fe = ctx.frontend()
    try:
        action = ctx.range_by_idx(0).action_by_idx(0)
        rec, report = evaluate_action(nvrules, action)
    except (AtomutilError, ValueError) as e:
        _message(nvrules, fe, "WARNING", "atomutil: %s" % e)
        return None
    except Exception as e:  # fail soft: a rule message, never a broken report
        _message(nvrules, fe, "WARNING", "atomutil: the rule failed: %s: %s" % (type(e).__name__, e))
        return None
    try:
        publish(nvrules, fe, action, rec, report)
    except Exception as e:
        _message(nvrules, fe, "WARNING", "atomutil: its result could not be written: %s: %s" % (type(e).__name__, e))
    return rec
