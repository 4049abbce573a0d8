#!/bin/sh
# run_cli_case.sh - runs one command of the CLI contract / bad-input tables and checks its exit
# status, stdout, stderr and (optionally) a file it writes, against rules given as arguments.
# tests/cli/CMakeLists.txt turns every table row into one such call.  POSIX sh + awk/grep only.
#
# usage: run_cli_case.sh EXIT [-o RULE]... [-e RULE]... [-f FILE [-r RULE]...] -- PROGRAM [ARG]...
#   EXIT   the exact exit status expected (a sanitizer abort or a crash never matches it)
#   -o     a rule for stdout, -e for stderr, -r for FILE (removed before the run, must exist after)
# rules:
#   empty          no bytes at all
#   lines:N        exactly N lines, each ended by a newline
#   first:TEXT     the first line starts with TEXT
#   has:TEXT       some line contains TEXT (fixed string)
#   hasnot:TEXT    no line contains TEXT
#   count:TEXT=N   TEXT occurs exactly N times (fixed string)
#   field:TEXT     TEXT is exactly one of the comma-separated fields of the first line
#   re:ERE         some line matches the extended regular expression ERE
#   maxlen:N       no line is longer than N bytes
#   printable      no control characters (newlines aside)
#   utf8           valid UTF-8 throughout (iconv, else python3)
#   json           one JSON object: first character '{', last '}', valid UTF-8 (RFC 8259; jq alone
#                  takes ill-formed bytes), and jq accepts it (jq: $ATOMUTIL_JQ, which CMake sets
#                  where it found jq; without it only the two characters are checked)
#   jq:FILTER      `jq -e FILTER` is true on it (e.g. jq:.launches[0].verdict == "significant");
#                  jq's env.NAME reads a value given with cli_case(... ENV NAME=value)
nl='
'
if [ $# -lt 3 ]; then
    echo "usage: run_cli_case.sh EXIT [-o RULE]... [-e RULE]... [-f FILE [-r RULE]...] -- PROGRAM [ARG]..." >&2
    exit 2
fi
expect=$1
shift
out_rules='' err_rules='' file='' file_rules=''
while [ $# -gt 0 ]; do
    case $1 in
    -o) out_rules=$out_rules$2$nl; shift 2 ;;
    -e) err_rules=$err_rules$2$nl; shift 2 ;;
    -f) file=$2; shift 2 ;;
    -r) file_rules=$file_rules$2$nl; shift 2 ;;
    --) shift; break ;;
    *) echo "run_cli_case.sh: unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
[ $# -ge 1 ] || { echo "run_cli_case.sh: no program after --" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/atomutil-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM

[ -n "$file" ] && rm -f "$file"
# $ATOMUTIL_TEST_WRAPPER (tools/memcheck.sh sets it to valgrind and its options) runs the program
# under a checker: the program itself, not this shell; a report must change the exit status
# shellcheck disable=SC2086
${ATOMUTIL_TEST_WRAPPER:-} "$@" >"$tmp/out" 2>"$tmp/err"
status=$?

failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}

# is_utf8 PATH: the file is valid UTF-8 (no ill-formed sequence, surrogate or overlong form)
is_utf8() {
    if command -v iconv >/dev/null 2>&1; then
        iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
    else
        python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null
    fi
}

# check_rule WHAT PATH RULE: one rule on one stream or file
check_rule() {
    what=$1 f=$2 rule=$3
    case $rule in
    empty)
        [ -s "$f" ] && fail "$what: expected no output" ;;
    lines:*)
        n=$(wc -l <"$f" | tr -d ' ')
        [ "$n" = "${rule#lines:}" ] || fail "$what: expected ${rule#lines:} line(s), got $n"
        [ -s "$f" ] && [ -n "$(tail -c 1 "$f")" ] && fail "$what: last line lacks its newline" ;;
    first:*)
        t=${rule#first:}
        l=$(head -n 1 "$f")
        case $l in
        "$t"*) ;;
        *) fail "$what: first line does not start with '$t'" ;;
        esac ;;
    has:*)
        LC_ALL=C grep -qF -- "${rule#has:}" "$f" || fail "$what: no line contains '${rule#has:}'" ;;
    hasnot:*)
        LC_ALL=C grep -qF -- "${rule#hasnot:}" "$f" && fail "$what: a line contains '${rule#hasnot:}'" ;;
    count:*)
        t=${rule#count:}
        want=${t##*=}
        t=${t%=*}
        n=$(LC_ALL=C awk -v t="$t" '{ s = $0; while ((i = index(s, t)) > 0) { n++; s = substr(s, i + length(t)) } }
                                   END { print n + 0 }' "$f")
        [ "$n" = "$want" ] || fail "$what: '$t' occurs $n times, expected $want" ;;
    field:*)
        t=${rule#field:}
        n=$(LC_ALL=C awk -F, -v t="$t" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == t) n++ } END { print n + 0 }' "$f")
        [ "$n" = 1 ] || fail "$what: '$t' is $n of the fields of line 1, expected exactly 1" ;;
    re:*)
        LC_ALL=C grep -qE -- "${rule#re:}" "$f" || fail "$what: no line matches /${rule#re:}/" ;;
    maxlen:*)
        LC_ALL=C awk -v m="${rule#maxlen:}" 'length($0) > m + 0 { bad = 1 } END { exit bad }' "$f" ||
            fail "$what: a line is longer than ${rule#maxlen:} bytes" ;;
    printable)
        LC_ALL=C grep -q '[[:cntrl:]]' "$f" && fail "$what: control characters in the output" ;;
    utf8)
        is_utf8 "$f" || fail "$what: not valid UTF-8" ;;
    json)
        is_utf8 "$f" || fail "$what: JSON not in valid UTF-8"
        first=$(LC_ALL=C tr -d ' \t\r\n' <"$f" | head -c 1)
        last=$(LC_ALL=C tr -d ' \t\r\n' <"$f" | tail -c 1)
        [ "$first$last" = "{}" ] || fail "$what: not a JSON object (starts '$first', ends '$last')"
        if [ -n "${ATOMUTIL_JQ:-}" ]; then
            "$ATOMUTIL_JQ" -e 'type == "object"' "$f" >/dev/null 2>&1 || fail "$what: jq does not accept it"
        fi ;;
    jq:*)
        if [ -z "${ATOMUTIL_JQ:-}" ]; then
            fail "$what: rule '$rule' needs jq (ATOMUTIL_JQ is not set)"
        else
            "$ATOMUTIL_JQ" -e "${rule#jq:}" "$f" >/dev/null 2>"$tmp/jq.err" ||
                fail "$what: jq '${rule#jq:}' is not true ($(head -c 300 "$tmp/jq.err"))"
        fi ;;
    *)
        fail "unknown rule '$rule' (a typo in the test table)" ;;
    esac
}

check_all() {
    what=$1 f=$2 rules=$3
    old_ifs=$IFS
    IFS=$nl
    set -f
    for r in $rules; do
        IFS=$old_ifs
        check_rule "$what" "$f" "$r"
    done
    IFS=$old_ifs
    set +f
}

[ "$status" = "$expect" ] || fail "exit status $status, expected $expect"
check_all stdout "$tmp/out" "$out_rules"
check_all stderr "$tmp/err" "$err_rules"
if [ -n "$file" ]; then
    if [ -f "$file" ]; then
        check_all "$file" "$file" "$file_rules"
    else
        fail "$file was not written"
    fi
fi

if [ "$failed" != 0 ]; then
    echo "---- command:"
    printf ' %s' "$@" | cut -c 1-400
    echo
    echo "---- exit status: $status"
    echo "---- stderr (first 40 lines, 300 bytes each):"
    head -n 40 "$tmp/err" | cut -c 1-300
    echo "---- stdout (first 20 lines, 300 bytes each):"
    head -n 20 "$tmp/out" | cut -c 1-300
    exit 1
fi
exit 0
