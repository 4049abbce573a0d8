#!/bin/sh
# install_pip.sh - the Python package installed as a user installs it, offline and with no
# ATOMUTIL_* variable set:
#   1. `cmake --install` into a temporary prefix: the library, its header, the package and
#      Nsight Compute's section and rule land in their places; the package imported from
#      PREFIX/share/atomutil/python finds the prefix's library and tables and reads the recorded
#      export as the installed atomutil-profile does; the installed rule, run by a stand-in NvRules
#      (fake_nvrules.py), finds them too;
#   2. `pip install --no-index` of a copy of python/ into a fresh virtual environment (pip's own
#      build isolation, no index: nothing downloaded); imported there, the package finds the library
#      through the prefix's atomutil-profile on PATH.
# Skipped (77) where PYTHON cannot make a virtual environment with pip (Debian: apt-get install
# python3-venv), unless REQUIRE is 1 (CI: ATOMUTIL_REQUIRE_TEST_TOOLS).
#   install_pip.sh PYTHON CMAKE BUILD_DIR SOURCE_DIR WORK_DIR REQUIRE
python=$1 cmake=$2 build=$3 src=$4 work=$5 require=${6:-0}
[ -n "$work" ] || { echo "usage: install_pip.sh PYTHON CMAKE BUILD_DIR SOURCE_DIR WORK_DIR [REQUIRE]" >&2; exit 2; }
unset ATOMUTIL_LIB ATOMUTIL_TABLES_DIR PYTHONPATH
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 PIP_NO_INPUT=1
rm -rf "$work"
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd -P)
prefix=$work/prefix
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
lib=$(find "$prefix" -name libatomutil.so | head -n 1)
case $lib in
"$prefix"/lib*/atomutil/libatomutil.so) ;;
*) fail "libatomutil.so not at PREFIX/lib*/atomutil/ (found '$lib')" ;;
esac
for f in include/atomutil/abi.h share/atomutil/python/atomutil/__init__.py share/atomutil/python/atomutil/_lib.py \
         share/atomutil/python/atomutil/_api.py share/atomutil/python/atomutil/ncu_rule.py \
         share/atomutil/ncu/AtomicUnit.section share/atomutil/ncu/AtomicUnit.py; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done

# the package as installed beside the library: the prefix's library and tables, the CLI's document
cp "$src/examples/data/histogram-h200.ncu.csv" "$work/export.csv"
cd "$work" || exit 1
"$prefix/bin/atomutil-profile" --import export.csv --json -q >cli.json || fail "installed atomutil-profile --import"
check='
import json, os, sys
import atomutil
prefix = sys.argv[1]
records = atomutil.read("export.csv")
with open("cli.json") as f:
    cli = json.load(f)
assert atomutil.library_path().startswith(prefix + "/"), atomutil.library_path()
assert records.report["table"]["path"].startswith(prefix + "/share/atomutil/tables/"), records.report["table"]
# the same table, which atomutil-profile names from its own folder (PREFIX/bin/../share/...)
cli["table"]["path"] = os.path.realpath(cli["table"]["path"])
assert records.report == cli, "read() differs from the installed atomutil-profile --json"
print("%s: %d launches, table %s" % (atomutil.__file__, len(records), records.report["table"]["path"]))
'
PYTHONPATH=$prefix/share/atomutil/python "$python" -c "$check" "$prefix" || fail "the package in PREFIX/share/atomutil/python"

# the installed rule under a stand-in NvRules, Python isolated (-I): it finds the package beside
# it, and the package the prefix's library and tables
rule='
import importlib.util, sys
prefix, tests = sys.argv[1:3]
sys.path.insert(0, tests)
import fake_nvrules, recorded
fake_nvrules.install()
spec = importlib.util.spec_from_file_location("AtomicUnit", prefix + "/share/atomutil/ncu/AtomicUnit.py")
rule = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rule)
ctx = fake_nvrules.Context(fake_nvrules.Action("k", recorded.launches("export.csv")[2].metrics))
rule.apply(ctx)
assert ctx.action.added.get("atomutil__util_pct") == 97.5463, ctx.fe.messages
assert "table nvidia-h200.csv" in ctx.fe.messages[0][1], ctx.fe.messages
'
"$python" -I -c "$rule" "$prefix" "$src/tests/python" || fail "the installed rule"

# pip, offline, into a virtual environment
if ! "$python" -m venv "$work/venv" >venv.log 2>&1 || [ ! -x "$work/venv/bin/pip" ]; then
    if [ "$require" = 1 ]; then
        cat venv.log
        fail "$python -m venv: no virtual environment with pip (Debian: apt-get install python3-venv)"
        exit 1
    fi
    [ $failed = 0 ] || exit 1
    echo "install_pip: SKIP pip install (no virtual environment with pip here: apt-get install python3-venv)"
    exit 77
fi
cp -R "$src/python" "$work/pysrc" || exit 1
"$work/venv/bin/python" -m pip install "$work/pysrc" >pip.log 2>&1 || { cat pip.log; fail "pip install --no-index"; }
PATH=$prefix/bin:$PATH "$work/venv/bin/python" -c "$check" "$prefix" >pip-check.log 2>&1 ||
    { cat pip-check.log; fail "the package installed by pip"; }
grep -q "^$work/venv/lib/python[0-9.]*/site-packages/atomutil/__init__.py: 16 launches" pip-check.log ||
    fail "pip's package is not the one imported: $(cat pip-check.log)"
[ $failed = 0 ] && echo "installed with cmake --install and pip (offline): the package reads as atomutil-profile"
exit $failed
