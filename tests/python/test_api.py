"""The Python package atomutil (docs/python.md) from the build tree's copy, with no ATOMUTIL_*
variable: it finds libatomutil.so as an installed copy does; read() gives atomutil-profile's JSON
document byte for byte in content (every recorded export and counters file, kernels' code
included), evaluate() the same record as read() for each launch, and every bad input an
AtomutilError or ValueError with its one line.

    test_api.py PYTHON_DIR ATOMUTIL_PROFILE SOURCE_DIR
"""

import csv
import os
import shutil
import subprocess
import sys
import unittest

PYDIR, PROFILE, SRC = (os.path.abspath(a) for a in sys.argv[1:4])
del sys.argv[1:4]
for var in ("ATOMUTIL_LIB", "ATOMUTIL_TABLES_DIR"):
    os.environ.pop(var, None)
sys.path.insert(0, PYDIR)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atomutil  # noqa: E402
import recorded  # noqa: E402

EXPORT = os.path.join(SRC, "examples/data/histogram-h200.ncu.csv")
H200 = os.path.join(SRC, "tables/nvidia-h200.csv")
H100 = os.path.join(SRC, "tables/nvidia-h100.csv")
DATA = os.path.join(SRC, "tests/data")
# recorded exports and counters files: ncu's, live runs' (their kernels' code beside them), the
# cluster and generic counter sets, CUDA graphs
RECORDED = [EXPORT, "compare/histogram-h200-b.ncu.csv", "good/ncu-cas-above-jobs.csv",
            "good/ncu-missing-wavefronts.csv", "good/ncu-u-implausible.csv", "good/ncu-some-launches-missing.csv",
            "good/ncu-interleaved.csv", "good/ncu-two-exports.csv", "good/ncu-warps-above-sm.csv",
            "live-examples-h100/histogram.counters.csv.gz", "live-examples-h100/kmeans.counters.csv.gz",
            "live-examples-h100/torch_hist.counters.csv.gz", "live-examples-h100/torch_bincount.counters.csv.gz",
            "dsmem-patterns-h100/dp.counters.csv.gz", "graphs-h100/lg.counters.csv.gz",
            "quiet-kernels-h100/set_mix.counters.csv.gz", "generic-h100/vop.counters.csv",
            "ncu-full-h200/histogram-raw-instances.ncu.csv", "ncu-full-h200/kmeans-raw-instances.ncu.csv"]


def cli_version():
    out = subprocess.run([PROFILE, "--version"], capture_output=True, text=True, check=True).stdout
    return out.split()[1]


class Library(unittest.TestCase):
    def test_found_in_the_build_tree(self):
        want = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(PYDIR))), "lib")
        self.assertTrue(atomutil.library_path().startswith(want), atomutil.library_path())

    def test_versions(self):
        self.assertEqual(atomutil.__version__, atomutil.library_version())
        self.assertEqual(atomutil.__version__, cli_version())

    def test_metric_names_are_the_clis(self):
        out = subprocess.run([PROFILE, "--print-ncu-metrics"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(atomutil.metric_names(), out.strip().split(","))
        std = atomutil.metric_names("standard")
        self.assertIn("smsp__inst_executed_op_shared_ld.sum", std)
        self.assertNotIn("l1tex__t_output_wavefronts_pipe_lsu_mem_dshared.sum", std)
        self.assertTrue(all(d["required"] for d in atomutil.metrics()[:5]))
        with self.assertRaises(ValueError):
            atomutil.metrics("fast")

    def test_missing_library(self):
        code = ("import atomutil\ntry:\n    atomutil.metrics()\nexcept atomutil.AtomutilError as e:\n"
                "    print('error:', e)\n")
        for lib, says in (("/nonexistent/libatomutil.so", "libatomutil.so not found (looked for /nonexistent/"),
                          (EXPORT, "cannot be loaded")):
            env = dict(os.environ, ATOMUTIL_LIB=lib, PYTHONPATH=PYDIR)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn(says, out.stdout)


class Read(unittest.TestCase):
    def setUp(self):
        self.work = recorded.workdir()
        os.environ["ATOMUTIL_TABLES_DIR"] = os.path.join(SRC, "tables")

    def tearDown(self):
        os.environ.pop("ATOMUTIL_TABLES_DIR", None)
        shutil.rmtree(self.work)

    def test_documents_are_the_clis(self):
        """Every recorded file: the same document as atomutil-profile --import --json, its table
        picked or given, and with options."""
        compared = 0
        for name in RECORDED:
            path = recorded.unpacked(os.path.join(DATA, name) if not os.path.isabs(name) else name, self.work)
            table = os.path.join(DATA, "generic-h100/table.csv") if "generic" in name else None
            variants = [([], {})]
            if name in (EXPORT, RECORDED[9]):  # the options' path through the library once
                variants.append((["--busy", "queue", "--bound", "70"], {"busy": "queue", "bound": 70}))
            for options, kwargs in variants:
                if table:
                    options, kwargs = options + ["--table", table], dict(kwargs, table=table)
                want = recorded.report(PROFILE, path, *options)
                self.assertIsNotNone(want, "atomutil-profile failed on " + name)
                got = atomutil.read(path, **kwargs)
                self.assertEqual(got.report, want, name)
                self.assertEqual(len(got), len(want["launches"]))
                compared += len(got)
        self.assertGreater(compared, 150)

    def test_kernel_code_is_used(self):
        path = recorded.unpacked(os.path.join(DATA, "live-examples-h100/kmeans.counters.csv.gz"), self.work)
        by_code = atomutil.read(path)
        by_family = atomutil.read(path, opcodes=False)
        self.assertTrue(any("opcodes" in r["flags"] for r in by_code))
        self.assertFalse(any("opcodes" in r["flags"] for r in by_family))
        self.assertEqual(by_family.report, recorded.report(PROFILE, path, "--no-opcodes"))
        with self.assertRaises(atomutil.AtomutilError) as e:
            atomutil.read(EXPORT, opcodes=True)
        self.assertIn("no kernel code", str(e.exception))

    def test_executions_per_opcode_are_used(self):
        """A --set full raw page with its instances (ncu's executions per opcode): priced by the
        opcodes, with the U of atomutil's ncu rule in the same report."""
        path = os.path.join(DATA, "ncu-full-h200/kmeans-raw-instances.ncu.csv")
        by_code = atomutil.read(path)
        by_family = atomutil.read(path, opcodes=False)
        with open(path) as f:
            rows = list(csv.reader(f))
        rule = [float(r[rows[0].index("atomutil__util_pct")]) for r in rows[2:]]
        self.assertEqual(len(by_code), len(rule))
        for rec, u in zip(by_code, rule):
            self.assertIn("opcodes", rec["flags"])
            self.assertAlmostEqual(rec["model"]["util_pct"], u, delta=0.001)
        self.assertFalse(any("opcodes" in r["flags"] for r in by_family))
        self.assertGreater(abs(by_family[0]["model"]["util_pct"] - rule[0]), 10)  # an add's price: far off

    def test_advice(self):
        """The advisor's fields of a record (docs/python.md): on the recorded hist_match pair, the
        baseline's what-ifs with their ranges, aggregate slower than the launch (its MATCH.ANY
        priced by the shipped H200 table), a best cure that saves time."""
        recs = atomutil.read(os.path.join(DATA, "advisor-match-h200/hist-match-16mi.counters.csv"))
        base = [r for r in recs if r["kernel"].startswith("adv_hist_match(")]
        self.assertEqual(len(base), 6)
        for r in base:
            a = r["advice"]
            self.assertIn(a["best"], a["whatif"])
            self.assertGreater(a["could_save_ns"], 0)
            for cure, w in a["whatif"].items():
                for k in ("busy_cycles", "active_cycles", "time_ns"):
                    self.assertLessEqual(w[k + "_lo" if k != "time_ns" else "time_lo_ns"], w[k], cure)
                    self.assertLessEqual(w[k], w[k + "_hi" if k != "time_ns" else "time_hi_ns"], cure)
            self.assertGreater(a["whatif"]["aggregate"]["time_ns"], r["duration_ns"])
            self.assertLess(a["whatif"][a["best"]]["time_ns"], r["duration_ns"])

    def test_why(self):
        recs = atomutil.read(os.path.join(DATA, "good/ncu-missing-wavefronts.csv"), table=H200)
        unknown = [r for r in recs if r["verdict"] == "unknown"]
        self.assertTrue(unknown)
        for r in recs:
            self.assertEqual(bool(r["why"]), r["verdict"] == "unknown")
        self.assertIn("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", unknown[0]["why"])

    def test_to_pandas(self):
        recs = atomutil.read(EXPORT)
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as e:
                recs.to_pandas()
            self.assertIn("pip install pandas", str(e.exception))
            return
        df = recs.to_pandas()
        self.assertEqual(len(df), len(recs))
        self.assertEqual(list(df["model.util_pct"]), [r["model"]["util_pct"] for r in recs])

    def test_bad_inputs(self):
        cases = [(lambda: atomutil.read(os.path.join(DATA, "no-such.csv")), -1, "no-such.csv"),
                 (lambda: atomutil.read(H200), -2, "nvidia-h200.csv"),
                 (lambda: atomutil.read(EXPORT, table=EXPORT), -2, "not a service-time table"),
                 (lambda: atomutil.read(EXPORT, family="nope"), -5, "has no family 'nope'"),
                 (lambda: atomutil.read(EXPORT, busy="fast"), -4, "busy mode 'fast'"),
                 (lambda: atomutil.read(os.path.join(DATA, "bad/ncu-value-negative.csv")), -2, "negative")]
        for fn, status, says in cases:
            with self.assertRaises(atomutil.AtomutilError) as e:
                fn()
            self.assertEqual(e.exception.status, status, str(e.exception))
            self.assertIn(says, str(e.exception))
            self.assertNotIn("\n", str(e.exception))
        with self.assertRaises(ValueError):
            atomutil.read(EXPORT, bound=0)


class Evaluate(unittest.TestCase):
    def test_each_launch_as_read(self):
        """Each launch of the export evaluated alone: the record read() gives it."""
        table = atomutil.load_table(H200)
        records = atomutil.read(EXPORT, table=table)
        launches = recorded.launches(EXPORT)
        self.assertEqual(len(launches), len(records))
        for launch, want in zip(launches, records):
            got = table.evaluate(launch.metrics, kernel=launch.kernel)
            for key in ("kernel", "device", "cc", "sm_count", "duration_ns", "counters", "model", "verdict", "flags",
                        "missing", "why"):
                self.assertEqual(got[key], want[key], "launch %d: %s" % (launch.id, key))
        self.assertEqual(records[2]["verdict"], "atomic-bound")

    def test_table_found_and_options(self):
        os.environ["ATOMUTIL_TABLES_DIR"] = os.path.join(SRC, "tables")
        try:
            launch = recorded.launches(EXPORT)[2]
            rec = atomutil.evaluate(launch.metrics)  # the table of the launch's GPU
            self.assertEqual(rec["model"]["util_pct"], 97.5463)
            t = atomutil.find_table("NVIDIA H200", "9.0")
            self.assertIs(t, atomutil.find_table("NVIDIA H200", (9, 0)))
            self.assertEqual((t.gpu_name, t.compute_capability, t.sm_count, t.other_gpu), ("NVIDIA H200", "9.0", 132,
                                                                                          False))
            self.assertIn("cast_spin", t.families)
            self.assertEqual((t.l2_hit_latency_cycles, t.dram_latency_cycles), (284.9, 664.2))
            self.assertEqual((t.match_any_cycles_per_value, t.match_any_latency_cycles_per_value), (2.0, 11.9))
            h100 = atomutil.load_table(path=os.path.join(SRC, "tables", "nvidia-h100.csv"))
            self.assertEqual((h100.l2_hit_latency_cycles, h100.dram_latency_cycles), (None, None))
            self.assertEqual((h100.match_any_cycles_per_value, h100.match_any_latency_cycles_per_value), (None, None))
            other = atomutil.load_table(gpu="NVIDIA H200 NVL", cc=9.0)
            self.assertTrue(other.other_gpu)
            queue = t.evaluate_records(launch.metrics, busy="queue", bound=99, significant=50)
            self.assertEqual(queue.report["busy_mode"], "queue")
            self.assertEqual(queue.report["thresholds_pct"], {"atomic_bound": 99, "significant": 50})
            self.assertEqual(queue[0]["verdict"], "significant")
            plain = dict(launch.metrics)
            del plain[recorded.CC_MAJOR], plain[recorded.CC_MINOR], plain[recorded.DEVICE]
            self.assertEqual(atomutil.evaluate(plain, device="NVIDIA H200", cc=(9, 0))["model"], rec["model"])
            self.assertEqual(atomutil.evaluate(plain, table=H200, sm_count=132)["model"], rec["model"])
        finally:
            os.environ.pop("ATOMUTIL_TABLES_DIR")

    def test_bad_inputs(self):
        table = atomutil.load_table(H200)
        launch = recorded.launches(EXPORT)[2]
        bad = dict(launch.metrics, **{"sm__cycles_active.avg": -3.0})
        for fn, status, says in [(lambda: table.evaluate(bad), -4, "sm__cycles_active.avg: -3"),
                                 (lambda: table.evaluate(launch.metrics, family="nope"), -5, "no family 'nope'"),
                                 (lambda: atomutil.load_table(EXPORT), -2, "not a service-time table"),
                                 (lambda: atomutil.load_table(os.path.join(DATA, "none.csv")), -1, "none.csv"),
                                 (lambda: atomutil.load_table(gpu="NVIDIA B200", cc=(10, 0)), -5,
                                  "no service-time table for NVIDIA B200 (compute capability 10.0)")]:
            with self.assertRaises(atomutil.AtomutilError) as e:
                fn()
            self.assertEqual(e.exception.status, status, str(e.exception))
            self.assertIn(says, str(e.exception))
        with self.assertRaises(ValueError):
            atomutil.load_table()
        with self.assertRaises(ValueError):
            atomutil.evaluate({"smsp__inst_executed_op_shared_atom.sum": 1})
        with table:
            pass
        with self.assertRaises(atomutil.AtomutilError):
            table.evaluate(launch.metrics)
        missing = atomutil.load_table(H200).evaluate({"smsp__inst_executed_op_shared_atom.sum": 5}, cc=(9, 0))
        self.assertEqual(missing["verdict"], "unknown")
        self.assertIn("sm__cycles_active.avg", missing["why"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
