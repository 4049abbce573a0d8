#!/bin/bash
R=$OUT/g1; . .debs/pre.sh
P=$(pwd)/build/bin/atomutil-profile; LIB=$(pwd)/build/lib/atomutil/libatomutil_inject.so
T=examples/python/train.py
python3 $T --steps 2 > /dev/null 2>&1   # file cache
order=(P N I S)
for rep in 0 1 2 3 4 5; do
  for k in 0 1 2 3; do
    m=${order[$(( (k + rep) % 4 ))]}
    case $m in
      P) cmd=(python3 $T --steps 20) ;;
      N) cmd=($P -q --timing --no-opcodes -k NO_SUCH_KERNEL_XYZ -o $R/n-$rep -- python3 $T --steps 20) ;;
      I) cmd=(env CUDA_INJECTION64_PATH=$LIB ATOMUTIL_KERNEL_REGEX=NO_SUCH_KERNEL_XYZ ATOMUTIL_COUNTERS_FILE=$R/i-$rep.counters.csv python3 $T --steps 20) ;;
      S) cmd=($P -q --timing -k kernelHistogram1D -o $R/s-$rep -- python3 $T --steps 20) ;;
    esac
    s=$EPOCHREALTIME; "${cmd[@]}" > /dev/null 2> $R/$m-$rep.err; rc=$?; t=$(python3 -c "print(round($EPOCHREALTIME - $s, 3))")
    echo "$m,$rep,$t,$rc" >> $R/g.csv
  done
done
python3 - $R/g.csv <<'PY'
import csv,sys,statistics as st
rows=list(csv.reader(open(sys.argv[1])))
d={}
for m,r,t,rc in rows: d.setdefault(m,{})[int(r)]=float(t)
for m in "PNIS": print(m, "median %.3f" % st.median(d[m].values()), " ".join("%.2f"%d[m][r] for r in sorted(d[m])))
for m in "NIS": print(m+"-P paired median %.3f" % st.median(d[m][r]-d["P"][r] for r in d["P"]))
PY
grep -h "attach\|timing early" $R/*.counters.csv | sed 's/==ATOMUTIL== [0-9]* info: //' | sort | uniq -c | head -30
rm -rf $R/*.cubins
cd $OUT && tar czf g1.tgz g1 && rm -rf g1
