#!/bin/sh
# install_test.sh - installs the build tree into a temporary prefix with `cmake --install` and runs
# the installed tools from there, with no ATOMUTIL_* variable set:
#   - the layout: binaries, injection library, tables, docs, man pages in their standard places
#   - bin/atomutil-profile --import EXPORT picks its table from PREFIX/share/atomutil/tables (the
#     report's 'table:' line must point into the prefix, not at the source tree's tables/)
#   - bin/atomutil-calibrate --help (when built)
#   - a live run (CPU only: ATOMUTIL_TEST_NO_GPU_CHECK=1 and a stand-in program) hands the program
#     PREFIX/<libdir>/atomutil/libatomutil_inject.so (when built)
# $ATOMUTIL_TEST_WRAPPER (e.g. valgrind ...) is put before every run of an installed binary.
#   install_test.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR
cmake=$1 build=$2 src=$3 work=$4
[ -n "$work" ] || { echo "usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR" >&2; exit 2; }
unset ATOMUTIL_TABLES_DIR ATOMUTIL_INJECTION_LIB ATOMUTIL_TEST_NO_GPU_CHECK CUDA_INJECTION64_PATH
wrap=${ATOMUTIL_TEST_WRAPPER:-}
rm -rf "$work"
mkdir -p "$work" || exit 1
prefix=$(cd "$work" && pwd -P)/prefix
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }

# layout
for f in bin/atomutil-profile share/atomutil/tables/nvidia-h200.csv share/atomutil/tables/nvidia-h100.csv \
         share/doc/atomutil/README.md share/doc/atomutil/cli.md share/doc/atomutil/table-format.md \
         share/man/man1/atomutil-profile.1; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ -x "$prefix/bin/atomutil-profile" ] || fail "bin/atomutil-profile not executable"
has_calibrate=0 has_inject=0
[ -f "$build/bin/atomutil-calibrate" ] && has_calibrate=1
inject_build=$(find "$build" -name libatomutil_inject.so -not -path '*/CMakeFiles/*' 2>/dev/null | head -n 1)
[ -n "$inject_build" ] && has_inject=1
if [ $has_calibrate = 1 ]; then
    [ -x "$prefix/bin/atomutil-calibrate" ] || fail "bin/atomutil-calibrate not installed"
    [ -f "$prefix/share/man/man1/atomutil-calibrate.1" ] || fail "man page atomutil-calibrate.1 not installed"
fi
inject=$(find "$prefix" -name libatomutil_inject.so 2>/dev/null | head -n 1)
if [ $has_inject = 1 ]; then
    case $inject in
    "$prefix"/lib*/atomutil/libatomutil_inject.so) ;;
    *) fail "injection library not at PREFIX/lib*/atomutil/ (found '$inject')" ;;
    esac
fi

# the installed profiler on the recorded export: tables from the prefix
cp "$src/examples/data/histogram-h200.ncu.csv" "$work/export.csv"
cd "$work" || exit 1
# shellcheck disable=SC2086 # the wrapper is a command with its options
$wrap "$prefix/bin/atomutil-profile" --import export.csv >report.txt 2>report.err
st=$?
[ $st = 0 ] || fail "installed atomutil-profile --import exited $st: $(head -n 3 report.err)"
line=$(grep '^table:' report.txt | head -n 1)
case $line in
"table:  $prefix/"*share/atomutil/tables/nvidia-h200.csv*) ;;
*) fail "report's table line does not point into the prefix: '$line'" ;;
esac
grep -q 'hist_asread_add.*atomic-bound' report.txt || fail "report lacks the atomic-bound hist_asread_add launch"

# shellcheck disable=SC2086
$wrap "$prefix/bin/atomutil-profile" --version >version.txt 2>&1 || fail "atomutil-profile --version"
if [ $has_calibrate = 1 ]; then
    # shellcheck disable=SC2086
    $wrap "$prefix/bin/atomutil-calibrate" --help >calibrate-help.txt 2>calibrate-help.err
    st=$?
    [ $st = 0 ] || fail "installed atomutil-calibrate --help exited $st: $(head -n 3 calibrate-help.err)"
    grep -q 'atomutil-calibrate' calibrate-help.txt || fail "atomutil-calibrate --help printed no usage"
fi

# live path without a GPU: the program must be handed the installed injection library
if [ $has_inject = 1 ]; then
    cat >target.sh <<'TARGET'
#!/bin/sh
echo "$CUDA_INJECTION64_PATH" >injection-path.txt
exit 0
TARGET
    chmod +x target.sh
    # shellcheck disable=SC2086
    ATOMUTIL_TEST_NO_GPU_CHECK=1 $wrap "$prefix/bin/atomutil-profile" -q -o live -- ./target.sh \
        >live.out 2>live.err
    got=$(cat injection-path.txt 2>/dev/null)
    want=$(cd "$(dirname "$inject")" && pwd -P)/libatomutil_inject.so
    [ "$got" = "$want" ] || fail "live run handed the program '$got', want '$want'"
    # its CUPTI dependency must resolve from the installed copy as from the build tree
    if command -v ldd >/dev/null 2>&1 && ldd "$inject_build" | grep -q 'libcupti.*=> /'; then
        ldd "$inject" | grep -q 'libcupti.*=> /' ||
            fail "installed injection library does not find libcupti: $(ldd "$inject" | grep cupti)"
    fi
    # CUPTI dlopen()s libnvperf_host.so, found through the DT_RPATH of the library that loaded
    # CUPTI (cmake/AtomutilCuda.cmake): the installed copy keeps it
    if command -v readelf >/dev/null 2>&1 && readelf -d "$inject_build" | grep -qE '\((RPATH|RUNPATH)\)'; then
        rpath=$(readelf -d "$inject" | sed -n 's/.*(RPATH).*\[\(.*\)\]$/\1/p')
        found=0
        for d in $(echo "$rpath" | tr ':' ' '); do [ -e "$d/libnvperf_host.so" ] && found=1; done
        [ $found = 1 ] || fail "installed injection library's RPATH '$rpath' has no libnvperf_host.so"
    fi
fi

if [ $failed != 0 ]; then
    echo "---- report.txt:"; head -n 5 report.txt
    echo "---- report.err:"; head -n 5 report.err
    exit 1
fi
echo "install test passed: prefix $prefix (calibrate: $has_calibrate, injection library: $has_inject)"
exit 0
