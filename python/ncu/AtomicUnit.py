"""Nsight Compute rule of atomutil (docs/nsight-compute.md): per kernel launch, the utilization U of
the SMs' shared-memory atomic unit, its range and verdict, from atomutil's own model.

This file only finds atomutil's Python package and hands the launch to it (atomutil.ncu_rule):
first the package installed beside this folder (PREFIX/share/atomutil/python, with the section in
PREFIX/share/atomutil/ncu), then one on Python's path.  Anything missing is a rule message, never
an exception: the report stays whole.
"""
import os
import sys

import NvRules


def get_identifier():
    return "AtomicUnit"


def get_name():
    return "Shared Atomic Unit (atomutil)"


def get_description():
    return "Utilization of the SMs' shared-memory atomic unit: is it the bottleneck of this kernel?"


def get_section_identifier():
    return "AtomicUnit"


def _rule_module():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        beside = os.path.join(os.path.dirname(here), "python")
        if os.path.isdir(os.path.join(beside, "atomutil")) and beside not in sys.path:
            sys.path.insert(0, beside)
    except NameError:  # no __file__: the package on Python's path only
        pass
    from atomutil import ncu_rule
    return ncu_rule


def apply(handle):
    try:
        rule = _rule_module()
    except Exception as e:
        fe = NvRules.get_context(handle).frontend()
        text = ("atomutil: its Python package cannot be imported (%s: %s): install atomutil with cmake --install "
                "and keep this rule in PREFIX/share/atomutil/ncu" % (type(e).__name__, e))
        msg_type = getattr(getattr(NvRules, "IFrontend", None), "MsgType_MSG_WARNING", None)
        if msg_type is None:
            fe.message(text)
        else:
            fe.message(msg_type, text)
        return
    rule.apply(NvRules, handle)
