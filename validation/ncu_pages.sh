#!/bin/sh
# ncu_pages.sh - an `ncu` for `atomutil-profile --import REPORT.ncu-rep` (through ATOMUTIL_NCU) that
# keeps the pages the import exports, or gives them back later without ncu, so that a run under
# Nsight Compute can be scored again by a later model without a GPU (docs/validation.md, "Advisor
# pairs"; validation/advisor_rescore.sh, advisor_frameworks.py --rescore).
#
#   record: NCU_PAGES_NCU=NCU NCU_PAGES_DIR=DIR ncu_pages.sh --import R.ncu-rep --csv --page P ...
#           runs NCU with the same arguments, prints its output and keeps it in DIR/R.PAGE.csv (the
#           source page cut to the columns the import reads: Address, Source, Instructions Executed)
#   replay: NCU_PAGES_DIR=DIR ncu_pages.sh --import R.ncu-rep --csv --page P ...
#           prints DIR/R.PAGE.csv (or R.PAGE.csv.xz); where none was kept (ncu had failed on that
#           page), an ==ERROR== line and exit status 1, as ncu
#
# PAGE: raw (--page raw), opcodes (--page raw --print-metric-instances ...: the executions per
# opcode), source (--page source).  R: the report's name without its folder and .ncu-rep.
dir=${NCU_PAGES_DIR:?ncu_pages.sh: NCU_PAGES_DIR is not set}
rep='' page='' inst=''
prev=
for a in "$@"; do
    case $prev in
    --import) rep=$a ;;
    --page) page=$a ;;
    esac
    [ "$a" = "--print-metric-instances" ] && inst=1
    prev=$a
done
if [ -z "$rep" ] || [ -z "$page" ]; then
    echo "==ERROR== ncu_pages.sh: want --import REPORT and --page PAGE, got: $*" >&2
    exit 1
fi
kind=$page
[ "$page" = raw ] && [ -n "$inst" ] && kind=opcodes
name=$(basename "$rep" .ncu-rep)
# the source page's columns that profile/import/ncu_source.c reads, and each launch's name row
cut_source='
import csv, sys
out, cols = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n"), None
for row in csv.reader(open(sys.argv[1], newline="")):
    if row[:1] == ["Kernel Name"]:
        out.writerow(row[:2] + [""])
    elif row[:1] == ["Address"]:
        cols = [row.index(c) for c in ("Address", "Source", "Instructions Executed") if c in row]
        out.writerow([row[i] for i in cols])
    elif cols:
        out.writerow([row[i] if i < len(row) else "" for i in cols])
'
keep=$dir/$name.$kind.csv
if [ -n "${NCU_PAGES_NCU:-}" ]; then
    mkdir -p "$dir" || exit 1
    "$NCU_PAGES_NCU" "$@" > "$keep.part"
    st=$?
    if [ "$st" -eq 0 ] && [ "$kind" = source ]; then
        # the source page is kept cut to the columns the import reads (it is megabytes whole)
        cat "$keep.part" && python3 -c "$cut_source" "$keep.part" > "$keep" && rm -f "$keep.part"
    elif [ "$st" -eq 0 ]; then
        mv "$keep.part" "$keep" && cat "$keep"
    else
        cat "$keep.part"
        rm -f "$keep.part"
    fi
    exit "$st"
fi
if [ -f "$keep" ]; then
    cat "$keep"
elif [ -f "$keep.xz" ]; then
    xz -dc "$keep.xz"
else
    echo "==ERROR== ncu_pages.sh: no kept $kind page of $name in $dir" >&2
    exit 1
fi
