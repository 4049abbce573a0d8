"""A stand-in for Nsight Compute's NvRules module, for running a rule without ncu: the calls and
constants of the NvRules API (Nsight Compute's Customization Guide) that rules use, over metric
values given by the test, recording what the rule writes.  install() puts it in sys.modules as
NvRules; a context is its own handle.
"""

import sys
import types


class IMetric:
    ValueKind_UNKNOWN, ValueKind_ANY, ValueKind_STRING, ValueKind_FLOAT, ValueKind_DOUBLE = 0, 1, 2, 3, 4
    ValueKind_UINT32, ValueKind_UINT64 = 5, 6


class IAction:
    NameBase_FUNCTION, NameBase_DEMANGLED, NameBase_MANGLED = 0, 1, 2


class IFrontend:
    MsgType_MSG_NONE, MsgType_MSG_OK, MsgType_MSG_OPTIMIZATION, MsgType_MSG_WARNING, MsgType_MSG_ERROR = 0, 1, 2, 3, 4
    Severity_SEVERITY_DEFAULT, Severity_SEVERITY_LOW, Severity_SEVERITY_HIGH = 0, 1, 2
    SpeedupType_LOCAL, SpeedupType_GLOBAL = 0, 1


MSG_NAMES = {IFrontend.MsgType_MSG_OK: "OK", IFrontend.MsgType_MSG_OPTIMIZATION: "OPTIMIZATION",
             IFrontend.MsgType_MSG_WARNING: "WARNING", IFrontend.MsgType_MSG_ERROR: "ERROR", None: None}


class Metric:
    def __init__(self, name, value):
        self._name, self._value = name, value

    def name(self):
        return self._name

    def has_value(self):
        return self._value is not None

    def kind(self):
        return IMetric.ValueKind_STRING if isinstance(self._value, str) else IMetric.ValueKind_DOUBLE

    def as_double(self):
        return 0.0 if isinstance(self._value, str) else float(self._value)

    def as_uint64(self):
        return 0 if isinstance(self._value, str) else int(self._value)

    def as_string(self):
        return self._value if isinstance(self._value, str) else None


class Addresses:
    """The correlation ids of an instanced metric: the instructions' addresses."""

    def __init__(self, pcs):
        self._pcs = list(pcs)

    def as_uint64(self, i):
        return self._pcs[i]


class Names:
    """The correlation ids of a metric per opcode: the opcodes (as ncu_report showed them on an
    H200 report: correlation_ids().as_string(i) == "ATOMS.CAST.SPIN.64")."""

    def __init__(self, names):
        self._names = list(names)

    def as_string(self, i):
        return self._names[i]


class InstancedMetric(Metric):
    """A metric per instruction, as ncu's SourceCounters section gives inst_executed: instances
    [(address, value)]; or per opcode, sass__inst_executed_per_opcode_with_modifier_all: [(opcode,
    value)]."""

    def __init__(self, name, instances):
        super().__init__(name, None)
        self._instances = list(instances)

    def has_correlation_ids(self):
        return True

    def correlation_ids(self):
        ids = [i for i, _ in self._instances]
        return Names(ids) if ids and isinstance(ids[0], str) else Addresses(ids)

    def num_instances(self):
        return len(self._instances)

    def as_double(self, i=None):
        return float(self._instances[i][1])


class Action:
    """A kernel launch: metrics {name: value}; added {name: value} what the rule added; sass
    {address: disassembled instruction} and counts [(address, executions)] where the report has
    the kernel's code (ncu's SourceCounters section); opcodes [(opcode, executions)] where it has
    the executions per opcode (--set full)."""

    def __init__(self, kernel, metrics, sass=None, counts=None, opcodes=None):
        self.kernel, self.metrics, self.added = kernel, dict(metrics), {}
        self.sass, self.counts, self.opcodes = dict(sass or {}), counts, opcodes

    def sass_by_pc(self, pc):
        return self.sass.get(pc, "")

    def name(self, base=IAction.NameBase_FUNCTION):
        return self.kernel if base == IAction.NameBase_DEMANGLED else self.kernel.split("(")[0]

    def metric_names(self):
        return tuple(self.metrics)

    def metric_by_name(self, name):
        if name == "inst_executed" and self.counts is not None:
            return InstancedMetric(name, self.counts)
        if name == "sass__inst_executed_per_opcode_with_modifier_all" and self.opcodes is not None:
            return InstancedMetric(name, self.opcodes)
        if name in self.added:
            return Metric(name, self.added[name])
        return Metric(name, self.metrics[name]) if name in self.metrics else None

    def _add(self, name, kind, want, value):
        if kind != want:
            raise TypeError("%s added with value kind %r, not %r" % (name, kind, want))
        if name in self.metrics or name in self.added:
            raise ValueError("metric %s exists" % name)
        self.added[name] = value
        return Metric(name, value)

    def add_double_metric(self, name, kind, value):
        return self._add(name, kind, IMetric.ValueKind_DOUBLE, float(value))

    def add_string_metric(self, name, kind, value):
        return self._add(name, kind, IMetric.ValueKind_STRING, str(value))


class Frontend:
    """messages [(kind name, text)], focus [(message id, metric, value, severity, info)]."""

    def __init__(self):
        self.messages, self.focus, self.speedups = [], [], []

    def message(self, *args):
        if len(args) == 1:
            msg_type, text = None, args[0]
        else:
            msg_type, text = args[0], args[1]
        if not isinstance(text, str) or msg_type not in MSG_NAMES:
            raise TypeError("message(%r)" % (args,))
        self.messages.append((MSG_NAMES[msg_type], text))
        return len(self.messages)

    def focus_metric(self, message_id, metric_name, metric_value, severity, info):
        if not 1 <= message_id <= len(self.messages):
            raise ValueError("focus_metric of message %r, which does not exist" % message_id)
        self.focus.append((message_id, metric_name, float(metric_value), severity, info))
        return True

    def speedup(self, message_id, speedup_type, value):
        self.speedups.append((message_id, speedup_type, value))
        return True


class Range:
    def __init__(self, actions):
        self.actions = actions

    def num_actions(self):
        return len(self.actions)

    def action_by_idx(self, i):
        return self.actions[i] if 0 <= i < len(self.actions) else None


class Context:
    """The profile result of one launch, and its own handle."""

    def __init__(self, action):
        self.action, self.fe = action, Frontend()

    def num_ranges(self):
        return 1

    def range_by_idx(self, i):
        return Range([self.action]) if i == 0 else None

    def frontend(self):
        return self.fe


def get_context(handle):
    return handle


def install():
    module = types.ModuleType("NvRules")
    for name in ("IMetric", "IAction", "IFrontend", "get_context"):
        setattr(module, name, globals()[name])
    sys.modules["NvRules"] = module
    return module
