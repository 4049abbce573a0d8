"""atomutil: is the shared-memory atomic unit the bottleneck of this kernel?

The Python API over atomutil's C library (libatomutil.so, loaded with ctypes; docs/python.md):

    import atomutil
    records = atomutil.read("app.ncu.csv")          # as atomutil-profile --import app.ncu.csv --json
    table = atomutil.load_table(gpu="NVIDIA H100 80GB HBM3", cc=(9, 0))
    rec = table.evaluate({"smsp__inst_executed_op_shared_atom.sum": 524288, ...})
    rec["model"]["util_pct"], rec["verdict"]

One model: every figure is the library's, the same code as atomutil-profile's.
"""

from ._api import (Records, Table, evaluate, find_table, library_path, library_version, load_table, metric_names,
                   metrics, read)
from ._lib import ABI_VERSION, AtomutilError

__version__ = "0.1.0"

__all__ = ["ABI_VERSION", "AtomutilError", "Records", "Table", "evaluate", "find_table", "library_path",
           "library_version", "load_table", "metric_names", "metrics", "read", "__version__"]
