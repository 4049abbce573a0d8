#!/bin/sh
# opcodes_cache.sh - the listing cache and the concurrent nvdisasm runs of --opcodes, on the CPU.
# The recorded runs of tests/data/opcodes get stand-in cubins (ELF objects made by the C compiler,
# with a function symbol per kernel, which is all atomutil-profile reads of a cubin) and a
# stand-in nvdisasm ($CUDA_HOME/bin/nvdisasm) that logs each call's start and end and prints a
# listing of the functions asked for (readelf gives their symbol indices).  Each run works on a
# fresh copy of BASE.counters.csv + BASE.cubins/ (no listings yet), so that only the cache can save
# an nvdisasm call.
#   opcodes_cache.sh ATOMUTIL_PROFILE CC DATA_DIR WORKDIR CASE
#   CASE: hit | corrupt | concurrent | unwritable | off | parallel
prof=$1 cc=$2 data=$3 work=$4 case=$5
fail() { echo "FAIL ($case): $*"; exit 1; }
command -v readelf > /dev/null || { echo "SKIP: no readelf (binutils)"; exit 77; }
rm -rf "$work" && mkdir -p "$work/bin" "$work/src" || exit 1
log=$work/nvdisasm.log
: > "$log"

# ---------------------------------------------------------------- stand-ins
cat > "$work/bin/nvdisasm" <<'FAKE'
#!/bin/sh
# nvdisasm FLAGS -fun I,J,... CUBIN; $FAKE_SLEEP: seconds to take; $FAKE_FAIL_BATCH: the CRC of a
# cubin whose runs for more than one function fail
log=$(dirname "$0")/../nvdisasm.log
echo "start $(date +%s.%N) $$ $*" >> "$log"
[ -n "$FAKE_SLEEP" ] && sleep "$FAKE_SLEEP"
list=$3 cubin=$4
case $list in
*,*) case $cubin in
     */"$FAKE_FAIL_BATCH.cubin") echo "end $(date +%s.%N) $$ failed" >> "$log"; exit 1 ;;
     esac ;;
esac
echo '	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"'
readelf -sW "$cubin" | awk -v list="$list" '
BEGIN { n = split(list, w, ","); for (i = 1; i <= n; ++i) want[w[i]] = 1 }
$4 == "FUNC" {
    i = $1; sub(":", "", i)
    if (!(i in want)) next
    printf "\t.section\t.text.%s,\"ax\",@progbits\n.text.%s:\n", $NF, $NF
    printf "\t//## File \"/src/k.cu\", line %d\n", 10 + i
    printf "        /*0010*/                   ATOMS.ADD R2, [R4], R11 ;\n"
    if ($NF ~ /mix/) printf "        /*0020*/                   ATOMS.CAS R6, [R3], R8, R9 ;\n"
}'
echo "end $(date +%s.%N) $$" >> "$log"
FAKE
chmod +x "$work/bin/nvdisasm" || exit 1
export CUDA_HOME="$work"
unset ATOMUTIL_CACHE_DIR XDG_CACHE_HOME FAKE_SLEEP FAKE_FAIL_BATCH

# make_cubin OUT TAG NAME...: an ELF object with a function symbol per NAME (TAG: its content)
make_cubin() {
    out=$1 tag=$2
    shift 2
    { echo "int atomutil_test_tag = $tag;"; for n; do echo "void $n(void) {}"; done; } > "$out.c"
    "$cc" -c -o "$out" "$out.c" || fail "cannot compile a stand-in cubin with $cc"
}

# the data set: one cubin (the persm run: uneven and mix) or three (the validation run's kernels
# dealt to CRCs 100, 101, 102)
if [ "$case" = parallel ]; then
    awk '/^==ATOMUTIL== [0-9]+ code: / { $4 = 100 + n++ % 3 } { print }' \
        "$data/validation-h200.counters.csv" > "$work/src/run.counters.csv" || exit 1
    for crc in 100 101 102; do
        # shellcheck disable=SC2046 # one word per kernel name
        make_cubin "$work/src/$crc.cubin" "$crc" \
            $(awk -v c="$crc" '$3 == "code:" && $4 == c { print $5 }' "$work/src/run.counters.csv")
    done
else
    cp "$data/persm-h200.counters.csv" "$work/src/run.counters.csv" || exit 1
    make_cubin "$work/src/2029369467.cubin" 1 _Z6unevenPjS_ _Z3mixPj
fi

# fresh NAME: a copy of the run without listings in $work/NAME
fresh() {
    rm -rf "${work:?}/$1" && mkdir -p "$work/$1/run.cubins" &&
        cp "$work/src/run.counters.csv" "$work/$1/" && cp "$work/src"/*.cubin "$work/$1/run.cubins/" || exit 1
}
# prof NAME ARGS...: atomutil-profile --import of copy NAME (a relative path: the reports of all
# copies are equal), JSON report to NAME/out.json, stderr to NAME/err, status to NAME/rc
prof() {
    d=$1
    shift
    (cd "$work/$d" && "$prof" --import run.counters.csv --json "$@" > out.json 2> err; echo $? > rc)
}
# check NAME: exit 0, nothing on stderr, the reference report
check() {
    [ "$(cat "$work/$1/rc")" = 0 ] || fail "$1: exit $(cat "$work/$1/rc"): $(cat "$work/$1/err")"
    [ -s "$work/$1/err" ] && fail "$1: stderr: $(cat "$work/$1/err")"
    cmp -s "$work/$1/out.json" "$work/ref/out.json" || fail "$1: the report differs from the one made without a cache"
}
calls() { grep -c '^start' "$log"; }
entries() { find "$1" -name '*.listing' 2>/dev/null | wc -l | tr -d ' '; }

# the reference: listed without a cache
fresh ref
ATOMUTIL_CACHE_DIR=off prof ref
[ "$(cat "$work/ref/rc")" = 0 ] || fail "reference run: exit $(cat "$work/ref/rc"): $(cat "$work/ref/err")"
[ -s "$work/ref/err" ] && fail "reference run: stderr: $(cat "$work/ref/err")"
if [ "$case" = parallel ]; then
    grep -q '"opcodes"' "$work/ref/out.json" || fail "reference report not priced by opcodes"
else
    grep -q '"classes": "add 50%, cas 50%"' "$work/ref/out.json" || fail "reference: mix not priced as add 50%, cas 50%"
fi
: > "$log"

sym() { readelf -sW "$work/src/2029369467.cubin" | awk -v n="$1" '$NF == n && $4 == "FUNC" {sub(":", "", $1); print $1}'; }
cache=$work/cache
export ATOMUTIL_CACHE_DIR="$cache"

case $case in
hit)
    fresh c1 && prof c1
    check c1
    [ "$(calls)" = 1 ] || fail "first run: $(calls) nvdisasm calls, want 1"
    [ "$(entries "$cache")" = 2 ] || fail "first run: $(entries "$cache") cache entries, want 2: $(ls -a "$cache")"
    head -n 1 "$cache"/*.listing | grep -q "^atomutil listing cache 1: cubin [0-9a-f]* [0-9]* sym [0-9]* tool .*nvdisasm [0-9]* [0-9.]* flags -gi$" ||
        fail "entry header: $(head -n 1 "$cache"/*.listing)"
    fresh c2 && prof c2 --timing
    [ "$(calls)" = 1 ] || fail "second run called nvdisasm: $(cat "$log")"
    grep -q '^atomutil-profile: timing: opcodes [0-9.]* s (1 cubins listed, 2 listings from cache, 0 nvdisasm runs)$' "$work/c2/err" ||
        fail "timing line: $(grep opcodes "$work/c2/err")"
    grep -v '^atomutil-profile: timing: ' "$work/c2/err" > "$work/c2/err.rest"
    mv "$work/c2/err.rest" "$work/c2/err" && check c2
    # the listings from the cache are those nvdisasm made, and an --import of them needs no cubin
    for f in "$work/c1/run.cubins"/*.sass; do
        cmp -s "$f" "$work/c2/run.cubins/${f##*/}" || fail "${f##*/} from the cache differs from nvdisasm's"
    done
    [ "$(find "$work/c2/run.cubins" -name '*.sass' | wc -l)" = 2 ] || fail "listings kept: $(ls "$work/c2/run.cubins")"
    rm "$work/c2/run.cubins"/*.cubin && prof c2 && check c2
    # another disassembler (its modification time changed: a toolkit installed over it) is a miss
    touch -d '2001-02-03 04:05:06' "$work/bin/nvdisasm"
    fresh c3 && prof c3 && check c3
    [ "$(calls)" = 2 ] || fail "a changed nvdisasm reused the listings of the old one"
    [ "$(entries "$cache")" = 4 ] || fail "$(entries "$cache") cache entries after a new nvdisasm, want 4"
    # the default places: $XDG_CACHE_HOME/atomutil/listings, else $HOME/.cache/atomutil/listings
    unset ATOMUTIL_CACHE_DIR
    fresh c4 && XDG_CACHE_HOME=$work/xdg HOME=$work/home prof c4 && check c4
    [ "$(entries "$work/xdg/atomutil/listings")" = 2 ] || fail "no entries in \$XDG_CACHE_HOME/atomutil/listings"
    fresh c5 && HOME=$work/home prof c5 && check c5
    [ "$(entries "$work/home/.cache/atomutil/listings")" = 2 ] || fail "no entries in \$HOME/.cache/atomutil/listings"
    fresh c6 && HOME=$work/home prof c6 && check c6
    [ "$(calls)" = 4 ] || fail "the cache in \$HOME was not used: $(calls) calls, want 4"
    echo "ok: a second run lists from the cache (no nvdisasm call), same listings and report; a new nvdisasm misses; XDG and HOME places"
    ;;
corrupt)
    fresh c0 && prof c0 && check c0
    sm=$(sym _Z3mixPj)
    eu=$(grep -l '^\.text\._Z6unevenPjS_:$' "$cache"/*.listing) em=$(grep -l '^\.text\._Z3mixPj:$' "$cache"/*.listing)
    if [ ! -f "$eu" ] || [ ! -f "$em" ]; then fail "no cache entry per kernel: $(ls "$cache")"; fi
    cp "$eu" "$work/good-u" && cp "$em" "$work/good-m" || exit 1
    n=1
    for how in truncated empty garbage wrong-key tampered other-function no-trailer wrong-length; do
        cp "$work/good-u" "$eu" && cp "$work/good-m" "$em" || exit 1
        case $how in
        truncated) head -c 100 "$work/good-m" > "$em" ;;
        empty) : > "$em" ;;
        garbage) dd if=/dev/urandom of="$em" bs=1024 count=3 2> /dev/null ;;
        wrong-key) sed '1s/ flags -gi$/ flags -gj/' "$work/good-m" > "$em" ;; # as long as the right key
        tampered) sed 's/ATOMS\.CAS/ATOMS.ADD/' "$work/good-m" > "$em" ;; # the checksum no longer fits
        other-function) { head -n 1 "$work/good-m"; tail -n +2 "$work/good-u"; } > "$em" ;;
        no-trailer) sed '$d' "$work/good-m" > "$em" ;;
        wrong-length) sed '$s/end: \([0-9]*\)/end: 1\1/' "$work/good-m" > "$em" ;;
        esac
        fresh "c-$how" && prof "c-$how" && check "c-$how"
        n=$((n + 1))
        [ "$(calls)" = "$n" ] || fail "$how entry: $(calls) nvdisasm calls, want $n"
        grep '^start' "$log" | tail -n 1 | grep -q -- "-gi -fun $sm " ||
            fail "$how entry: want one call for mix alone (-gi -fun $sm), log: $(cat "$log")"
        cmp -s "$em" "$work/good-m" || fail "$how entry was not made again"
        cmp -s "$eu" "$work/good-u" || fail "$how: the good entry changed"
    done
    [ "$(entries "$cache")" = 2 ] || fail "cache entries: $(ls -a "$cache")"
    [ -z "$(find "$cache" -name '.tmp*')" ] || fail "temporary files left: $(ls -a "$cache")"
    echo "ok: truncated, empty, garbage, wrong-key, tampered, other-function, trailer-less and wrong-length entries removed and made again, reports unchanged"
    ;;
concurrent)
    # four runs at once on an empty cache (each nvdisasm takes 0.3 s: their writes overlap) ...
    for i in 1 2 3 4; do fresh "m$i"; done
    FAKE_SLEEP=0.3 prof m1 & FAKE_SLEEP=0.3 prof m2 & FAKE_SLEEP=0.3 prof m3 & FAKE_SLEEP=0.3 prof m4 &
    wait
    for i in 1 2 3 4; do check "m$i"; done
    [ "$(entries "$cache")" = 2 ] || fail "cache entries after concurrent misses: $(ls -a "$cache")"
    [ -z "$(find "$cache" -name '.tmp*')" ] || fail "temporary files left: $(ls -a "$cache")"
    # ... and four at once that find it full
    c=$(calls)
    for i in 1 2 3 4; do fresh "h$i"; done
    prof h1 & prof h2 & prof h3 & prof h4 &
    wait
    for i in 1 2 3 4; do check "h$i"; done
    [ "$(calls)" = "$c" ] || fail "runs on a full cache called nvdisasm: $(cat "$log")"
    for i in 2 3 4; do
        for f in "$work/h1/run.cubins"/*.sass; do
            cmp -s "$f" "$work/h$i/run.cubins/${f##*/}" || fail "h$i: ${f##*/} differs"
        done
    done
    echo "ok: four concurrent runs on an empty cache and four on a full one: same reports, whole entries"
    ;;
unwritable)
    : > "$work/a-file"
    # ATOMUTIL_CACHE_DIR under a file, HOME a file, no HOME: a note at most, the same report
    fresh u1 && ATOMUTIL_CACHE_DIR=$work/a-file/listings prof u1
    fresh u2 && (unset ATOMUTIL_CACHE_DIR; HOME=$work/a-file prof u2)
    fresh u3 && (unset ATOMUTIL_CACHE_DIR HOME; prof u3)
    fresh u4 && ATOMUTIL_CACHE_DIR=$work/a-file/listings prof u4 -q
    [ -s "$work/u4/err" ] && fail "-q: stderr: $(cat "$work/u4/err")"
    for u in u1 u2 u3 u4; do
        [ "$(cat "$work/$u/rc")" = 0 ] || fail "$u: exit $(cat "$work/$u/rc"): $(cat "$work/$u/err")"
        [ "$(wc -l < "$work/$u/err")" -le 1 ] || fail "$u: more than one line on stderr: $(cat "$work/$u/err")"
        if [ -s "$work/$u/err" ]; then
            grep -q '^atomutil-profile: note: .*listing cache' "$work/$u/err" || fail "$u: stderr: $(cat "$work/$u/err")"
            : > "$work/$u/err"
        fi
        check "$u"
    done
    [ "$(calls)" = 4 ] || fail "$(calls) nvdisasm calls in 4 runs without a cache"
    if [ "$(id -u)" != 0 ]; then # root writes anywhere
        mkdir -p "$work/ro" && chmod 555 "$work/ro"
        fresh u5 && ATOMUTIL_CACHE_DIR=$work/ro/listings prof u5
        chmod 755 "$work/ro"
        [ "$(wc -l < "$work/u5/err")" -le 1 ] || fail "u5: stderr: $(cat "$work/u5/err")"
        : > "$work/u5/err" && check u5
    fi
    echo "ok: a cache that cannot be made (under a file, HOME a file, no HOME, read-only) costs one note at most"
    ;;
off)
    fresh o1 && ATOMUTIL_CACHE_DIR=off prof o1 && check o1
    fresh o2 && ATOMUTIL_CACHE_DIR=off prof o2 && check o2
    [ "$(calls)" = 2 ] || fail "ATOMUTIL_CACHE_DIR=off: $(calls) nvdisasm calls in 2 runs, want 2"
    [ -e "$work/o1/off" ] && fail "ATOMUTIL_CACHE_DIR=off made a directory 'off'"
    fresh o3 && prof o3 --no-cache && check o3
    [ -e "$cache" ] && fail "--no-cache made the cache directory"
    fresh o4 && prof o4 && check o4 # fills the cache
    fresh o5 && prof o5 --no-cache && check o5
    [ "$(calls)" = 5 ] || fail "--no-cache used the cache: $(calls) nvdisasm calls in 5 runs, want 5"
    echo "ok: ATOMUTIL_CACHE_DIR=off and --no-cache list without the cache"
    ;;
parallel)
    [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || { echo "SKIP: one CPU, the runs cannot overlap"; exit 77; }
    export ATOMUTIL_CACHE_DIR=off
    fresh p1 && FAKE_SLEEP=1 prof p1 && check p1
    [ "$(calls)" = 3 ] || fail "$(calls) nvdisasm calls for 3 cubins, want 3: $(cat "$log")"
    # every run's interval: start end; two of them must overlap
    awk '$1 == "start" { s[$3] = $2 } $1 == "end" { e[$3] = $2 }
         END { for (a in s) for (b in s) if (a < b && s[a] < e[b] && s[b] < e[a]) ok = 1; exit !ok }' "$log" ||
        fail "the nvdisasm runs did not overlap: $(cat "$log")"
    # a failed run costs only its cubin a listing per function
    : > "$log"
    fresh p2 && FAKE_FAIL_BATCH=101 prof p2 && check p2
    grep '^start' "$log" | grep -q '101\.cubin$' || fail "no run for cubin 101"
    n101=$(grep '^start' "$log" | grep -c '101\.cubin$') nall=$(calls)
    [ "$n101" -gt 2 ] || fail "cubin 101: $n101 runs, want the failed one and one per kernel"
    [ "$((nall - n101))" = 2 ] || fail "the other cubins: $((nall - n101)) runs, want 2: $(cat "$log")"
    echo "ok: 3 cubins listed by 3 overlapping nvdisasm runs; a failed run falls back to one listing per kernel of its cubin"
    ;;
*) fail "unknown case" ;;
esac
