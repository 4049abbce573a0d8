"""Nsight Compute's section and rule AtomicUnit (python/ncu/) without ncu: the rule file of the
build tree, run by a stand-in NvRules (fake_nvrules.py) on the metric values of recorded exports
and counters files, must give every launch the U, range and verdict that atomutil-profile
--import gives it (one model), say its result as the NvRules API wants it, and fail soft: no
table, no library, no package, missing metrics or a broken action are one rule message each,
never an exception.  The section must name exactly the metrics atomutil reads.

    test_rule.py SHARE_DIR ATOMUTIL_PROFILE SOURCE_DIR      (SHARE_DIR: BUILD/share/atomutil)
"""

import csv
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

SHARE, PROFILE, SRC = (os.path.abspath(a) for a in sys.argv[1:4])
del sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.pop("ATOMUTIL_LIB", None)
os.environ["ATOMUTIL_TABLES_DIR"] = os.path.join(SRC, "tables")  # the rule's and the CLI's tables
sys.path.insert(0, HERE)

import fake_nvrules  # noqa: E402
import recorded  # noqa: E402

NV = fake_nvrules.install()
RULE_FILE = os.path.join(SHARE, "ncu", "AtomicUnit.py")
SECTION_FILE = os.path.join(SHARE, "ncu", "AtomicUnit.section")
DATA = os.path.join(SRC, "tests/data")
EXPORT = os.path.join(SRC, "examples/data/histogram-h200.ncu.csv")
EXPORTS = [EXPORT, "compare/histogram-h200-b.ncu.csv", "good/ncu-cas-above-jobs.csv", "good/ncu-missing-wavefronts.csv",
           "good/ncu-u-implausible.csv", "good/ncu-some-launches-missing.csv", "good/ncu-interleaved.csv",
           "good/ncu-warps-above-sm.csv", "good/ncu-wavefronts-below-jobs.csv"]
# counters files of live runs: the rule has no kernel code, so atomutil-profile --no-opcodes
COUNTERS = ["live-examples-h100/histogram.counters.csv.gz", "live-examples-h100/kmeans.counters.csv.gz",
            "live-examples-h100/torch_bincount.counters.csv.gz", "dsmem-patterns-h100/dp.counters.csv.gz",
            "quiet-kernels-h100/set_mix.counters.csv.gz", "graphs-h100/lg.counters.csv.gz"]


def load_rule(path=RULE_FILE):
    """The rule file as Nsight Compute loads it: a module of its own, NvRules importable."""
    spec = importlib.util.spec_from_file_location("AtomicUnit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RULE = load_rule()


def run(metrics, kernel="k(int)", action=None):
    """The rule applied to one launch: its context (action.added, fe.messages, fe.focus)."""
    ctx = fake_nvrules.Context(action or fake_nvrules.Action(kernel, metrics))
    RULE.apply(ctx)
    return ctx


class Section(unittest.TestCase):
    def test_names_the_metrics_atomutil_reads(self):
        import atomutil  # found beside the rule, as the rule found it
        with open(SECTION_FILE, encoding="utf-8") as f:
            text = f.read()
        self.assertRegex(text, r'(?m)^Identifier: "AtomicUnit"$')
        names = re.findall(r'(?m)^ *Name: "([^"]+)"', text)
        self.assertEqual(len(names), len(set(names)), "a metric named twice")
        want = set(atomutil.metric_names()) | {recorded.CC_MAJOR, recorded.CC_MINOR}
        self.assertEqual(set(names), want)
        self.assertEqual(RULE.get_identifier(), "AtomicUnit")
        self.assertEqual(RULE.get_section_identifier(), "AtomicUnit")
        self.assertTrue(RULE.get_name() and RULE.get_description())
        self.assertTrue(atomutil.library_path().startswith(os.path.dirname(os.path.dirname(SHARE))))


class SameAsTheCli(unittest.TestCase):
    def setUp(self):
        self.work = recorded.workdir()

    def tearDown(self):
        shutil.rmtree(self.work)

    def check_file(self, path, *options):
        """Each launch of the file through the rule against atomutil-profile's record; their number."""
        want = recorded.report(PROFILE, path, *options)
        self.assertIsNotNone(want, "atomutil-profile failed on %s" % path)
        by_key = {(r["process_id"], r["launch_id"]): r for r in want["launches"]}
        launches = recorded.launches(path)
        self.assertEqual(len(launches), len(by_key), path)
        for launch in launches:
            cli = by_key[(launch.pid, launch.id)]
            ctx = run(launch.metrics, launch.kernel)
            where = "%s launch %d" % (os.path.basename(path), launch.id)
            self.assertEqual(len(ctx.fe.messages), 1, where)
            kind, text = ctx.fe.messages[0]
            if cli["verdict"] == "unknown":
                self.assertNotIn("atomutil__util_pct", ctx.action.added, where)
                self.assertEqual(kind, "WARNING", where)
                self.assertIn("could not evaluate", text, where)
                continue
            for key in ("util_pct", "util_pct_lo", "util_pct_hi", "util_pct_busiest_sm", "a_passes_per_job"):
                self.assertEqual(ctx.action.added.get("atomutil__" + key), cli["model"][key], where + ": " + key)
            self.assertEqual(ctx.action.added["atomutil__verdict"], cli["verdict"], where)
            self.assertEqual(ctx.action.added["atomutil__flags"], ",".join(cli["flags"]), where)
            want_kind = {"atomic-bound": "OPTIMIZATION", "significant": "WARNING", "uncertain": "WARNING"}
            self.assertEqual(kind, want_kind.get(cli["verdict"], "OK"), where)
            if cli["verdict"] in ("atomic-bound", "significant"):
                self.assertEqual(ctx.fe.focus[0][1:3], ("atomutil__util_pct", cli["model"]["util_pct"]), where)
            else:
                self.assertEqual(ctx.fe.focus, [], where)
            # the advisor's best cure and its speedup, ncu's estimated speedup where the unit matters
            adv = cli.get("advice")
            self.assertEqual(ctx.action.added.get("atomutil__best_cure"), adv and adv["best"], where)
            speedup = adv and adv["whatif"][adv["best"]]["speedup_pct"]
            self.assertEqual(ctx.action.added.get("atomutil__speedup_pct"), speedup, where)
            shown = adv and cli["verdict"] in ("atomic-bound", "significant", "uncertain")
            self.assertEqual(ctx.fe.speedups, [(1, NV.IFrontend.SpeedupType_LOCAL, speedup)] if shown else [], where)
            self.assertEqual("What would help most" in text, bool(shown), where)
        return len(launches)

    def test_exports(self):
        n = sum(self.check_file(os.path.join(DATA, p) if not os.path.isabs(p) else p) for p in EXPORTS)
        self.assertGreater(n, 40)

    def test_counters_files(self):
        n = sum(self.check_file(recorded.unpacked(os.path.join(DATA, p), self.work), "--no-opcodes") for p in COUNTERS)
        self.assertGreater(n, 60)

    def test_message(self):
        launches = recorded.launches(EXPORT)
        bound = run(launches[2].metrics, launches[2].kernel)
        kind, text = bound.fe.messages[0]
        self.assertEqual(kind, "OPTIMIZATION")
        for words in ("busy 97.5 % of the SMs' active cycles", "atomic-bound (U of at least 80 %)",
                      "a = 32.0 serialized passes", "table nvidia-h200.csv, family add",
                      "What would help most: one pass per job: no two lanes of a warp in one bank; the unit's "
                      "busy time -97 %"):
            self.assertIn(words, text)
        self.assertEqual(bound.fe.focus[0][3], NV.IFrontend.Severity_SEVERITY_HIGH)
        with open(os.path.join(SRC, "docs/nsight-compute.md"), encoding="utf-8") as f:
            shown = re.search(r"launch 2:\n\n```\n(.*?)```", f.read(), re.S).group(1)
        self.assertEqual(" ".join(shown.split()), text, "docs/nsight-compute.md shows another message")
        self.assertEqual(run(launches[0].metrics).fe.messages[0][0], "OK")
        idle = dict(launches[0].metrics)
        for name in ("smsp__inst_executed_op_shared_atom.sum", "smsp__inst_executed_op_shared_atom_dot_cas.sum",
                     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"):
            idle[name] = 0.0
        self.assertEqual(run(idle).fe.messages, [("OK", "This launch ran no shared-memory atomic instruction: the "
                                                         "shared atomic unit was idle.")])


class WithTheCode(unittest.TestCase):
    """A report with the kernel's SASS and per-instruction counts (ncu's SourceCounters section): the
    jobs priced by their opcodes, split among the classes by the counts."""

    SASS = {0x100: "      ATOMS.ADD R4, [R2], R5 ;", 0x110: "  @P0 ATOMS.ADD R7, [R3], R5 ;",
            0x120: "      ATOMS.POPC.INC.32 RZ, [R6+URZ] ;", 0x130: "      LDS R9, [R2] ;"}

    def launch(self, counts):
        metrics = recorded.launches(EXPORT)[2].metrics
        return run(metrics, action=fake_nvrules.Action("k(int)", metrics, self.SASS, counts))

    def test_counted(self):
        ctx = self.launch([(0x100, 1e5), (0x110, 2e5), (0x120, 1e5), (0x130, 4e5)])
        kind, text = ctx.fe.messages[0]
        self.assertIn("Jobs by opcode class (from the report's instruction counts): add 75%, popc_inc 25%.", text)
        self.assertNotIn("split_estimated", ctx.action.added["atomutil__flags"])
        self.assertIn("opcodes", ctx.action.added["atomutil__flags"])

    def test_per_opcode_first(self):
        # the executions per opcode (what atomutil-profile --import reads) price the jobs, where the
        # per-instruction SASS is missing (it was for child processes' launches) or disagrees
        per_opcode = [("IMAD", 5e5), ("ATOMS.ADD", 3e5), ("ATOMS.POPC.INC.32", 1e5)]
        metrics = recorded.launches(EXPORT)[2].metrics
        alone = run(metrics, action=fake_nvrules.Action("k(int)", metrics, opcodes=per_opcode))
        both = run(metrics, action=fake_nvrules.Action("k(int)", metrics, self.SASS, [(0x100, 1e5)], per_opcode))
        for ctx in (alone, both):
            self.assertIn("add 75%, popc_inc 25%.", ctx.fe.messages[0][1])
            self.assertIn("opcodes", ctx.action.added["atomutil__flags"])
        self.assertEqual(alone.action.added["atomutil__util_pct"], both.action.added["atomutil__util_pct"])
        # no atomic opcode among them: the per-instruction counts, else one family
        none = run(metrics, action=fake_nvrules.Action("k(int)", metrics, opcodes=[("IMAD", 5e5)]))
        self.assertNotIn("opcodes", none.action.added["atomutil__flags"])

    def test_the_clis_u_on_a_full_report(self):
        # the recorded --set full report of k-means (tests/data/ncu-full-h200): the rule given the
        # executions per opcode reads the U the rule wrote there (and atomutil-profile --import reads)
        raw = list(csv.reader(open(os.path.join(DATA, "ncu-full-h200/kmeans-raw.ncu.csv"))))
        ops = list(csv.reader(open(os.path.join(DATA, "ncu-full-h200/kmeans-opcodes.ncu.csv"))))
        h, oh = raw[0], ops[0]
        import atomutil
        names = set(atomutil.metric_names())
        for row, orow in zip(raw[2:], ops[2:]):
            major, minor = row[h.index("CC")].split(".")  # the page keeps the CC column, not its metrics
            metrics = {"device__attribute_compute_capability_major": float(major),
                       "device__attribute_compute_capability_minor": float(minor)}
            for name, v in zip(h, row):
                if name in names and v not in ("", "n/a"):
                    metrics[name] = v if name == "device__attribute_display_name" else float(v.replace(",", ""))
            cell = orow[oh.index("sass__inst_executed_per_opcode_with_modifier_all")]
            inner = cell[cell.index("(") + 1:cell.rindex(")")]
            per_opcode = [(op.strip(), float(n.replace(",", ""))) for op, n in (x.split(":") for x in inner.split(";"))]
            ctx = run(metrics, action=fake_nvrules.Action(row[h.index("Kernel Name")], metrics, opcodes=per_opcode))
            self.assertAlmostEqual(ctx.action.added["atomutil__util_pct"],
                                   float(row[h.index("atomutil__util_pct")]), delta=0.001)

    def test_no_counts(self):
        # a report without the per-instruction counts: priced as an export is, by one family
        ctx = self.launch(None)
        self.assertNotIn("Jobs by opcode class", ctx.fe.messages[0][1])
        self.assertNotIn("opcodes", ctx.action.added["atomutil__flags"])

    def test_same_as_the_library(self):
        import atomutil
        metrics = recorded.launches(EXPORT)[2].metrics
        ctx = self.launch([(0x100, 1e5), (0x110, 2e5), (0x120, 1e5), (0x130, 4e5)])
        table = atomutil.load_table(os.path.join(SRC, "tables/nvidia-h200.csv"))
        rec = table.evaluate(metrics, kernel="k(int)",
                             code=[("ATOMS.ADD", 1e5), ("ATOMS.ADD", 2e5), ("ATOMS.POPC.INC.32", 1e5)])
        self.assertEqual(ctx.action.added["atomutil__util_pct"], rec["model"]["util_pct"])
        self.assertEqual(rec["opcodes"]["classes"], "add 75%, popc_inc 25%")


class FailsSoft(unittest.TestCase):
    def one_warning(self, ctx, says):
        self.assertEqual(len(ctx.fe.messages), 1, ctx.fe.messages)
        self.assertEqual(ctx.fe.messages[0][0], "WARNING")
        self.assertIn(says, ctx.fe.messages[0][1])
        self.assertNotIn("atomutil__util_pct", ctx.action.added)

    def test_no_table(self):
        metrics = dict(recorded.launches(EXPORT)[2].metrics)
        metrics.update({recorded.DEVICE: "NVIDIA Z100", recorded.CC_MAJOR: 5.0, recorded.CC_MINOR: 2.0})
        for _ in range(2):  # the second launch of that GPU: the same line, the search not redone
            self.one_warning(run(metrics), "no service-time table for NVIDIA Z100 (compute capability 5.2)")

    def test_missing_metrics(self):
        metrics = dict(recorded.launches(EXPORT)[2].metrics)
        del metrics["sm__cycles_active.avg"]
        self.one_warning(run(metrics), "could not evaluate this launch: sm__cycles_active.avg")
        del metrics[recorded.CC_MAJOR]
        self.one_warning(run(metrics), "lacks device__attribute_compute_capability_major")

    def test_broken_action(self):
        class Broken(fake_nvrules.Action):
            def metric_by_name(self, name):
                raise RuntimeError("no metrics today")

        self.one_warning(run(None, action=Broken("k", {})), "the rule failed: RuntimeError: no metrics today")
        taken = dict(recorded.launches(EXPORT)[2].metrics, atomutil__util_pct=1.0)  # add_double_metric fails
        ctx = run(taken)
        self.assertEqual([k for k, _ in ctx.fe.messages], ["OPTIMIZATION", "WARNING"])
        self.assertIn("its result could not be written: ValueError", ctx.fe.messages[1][1])

    def in_subprocess(self, rule_file, env, *flags, prelude=""):
        code = (prelude + "import importlib.util, json, sys\nsys.path.insert(0, %r)\n"
                "import fake_nvrules\nfake_nvrules.install()\n"
                "spec = importlib.util.spec_from_file_location('AtomicUnit', %r)\n"
                "rule = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(rule)\n"
                "ctx = fake_nvrules.Context(fake_nvrules.Action('k(int)', %r))\nrule.apply(ctx)\n"
                "print(json.dumps(ctx.fe.messages))\n" % (HERE, rule_file, recorded.launches(EXPORT)[2].metrics))
        out = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        return [tuple(m) for m in json.loads(out.stdout)]

    def test_no_sysconfig_data(self):
        # as in Nsight Compute's embedded Python, where the rule's first launch failed on it
        prelude = ("import sysconfig\ndef _missing(*a):\n    raise ModuleNotFoundError(\"No module named "
                   "'_sysconfigdata__unknown_'\")\nsysconfig.get_config_var = _missing\n")
        (kind, text), = self.in_subprocess(RULE_FILE, dict(os.environ), prelude=prelude)
        self.assertEqual(kind, "OPTIMIZATION", text)
        self.assertIn("atomic-bound", text)

    def test_no_library(self):
        env = dict(os.environ, ATOMUTIL_LIB="/nonexistent/libatomutil.so")
        (kind, text), = self.in_subprocess(RULE_FILE, env)
        self.assertEqual(kind, "WARNING")
        self.assertTrue(text.startswith("atomutil: libatomutil.so not found (looked for /nonexistent/"), text)

    def test_no_package(self):
        work = recorded.workdir()
        try:
            alone = os.path.join(work, "AtomicUnit.py")
            shutil.copy(RULE_FILE, alone)
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            (kind, text), = self.in_subprocess(alone, env, "-I", "-S")  # the standard library alone on the path
            self.assertEqual(kind, "WARNING")
            self.assertTrue(text.startswith("atomutil: its Python package cannot be imported (ModuleNotFoundError"),
                            text)
        finally:
            shutil.rmtree(work)


if __name__ == "__main__":
    unittest.main(verbosity=1)
