#!/bin/bash
R=$OUT/u1; . .debs/pre.sh
echo "build $SECONDS" > $R/progress
./build/bin/cupti_floor -n 2000 > $R/floor.txt 2>&1; echo "rc $?" >> $R/floor.txt
echo "floor $SECONDS" >> $R/progress
P=$(pwd)/build/bin/atomutil-profile
T=examples/python/train.py
export ATOMUTIL_CACHE_DIR=/tmp/aucache
$P -q --launches-per-kernel 3 -o /tmp/warm -- python3 $T --steps 20 > /dev/null 2>&1
for rep in 0 1; do
  /usr/bin/time -f "%e" -o $R/wall-plain-$rep.txt python3 $T --steps 20 --check $R/check-plain-$rep.json > $R/out-plain-$rep.txt 2>&1
  for rp in kernel user; do for m in sel cap; do
    case $m in sel) o="-k kernelHistogram1D";; cap) o="--launches-per-kernel 3";; esac
    rm -rf /tmp/au.*
    ATOMUTIL_REPLAY=$rp /usr/bin/time -f "%e" -o $R/wall-$m-$rp-$rep.txt $P -q --timing $o -o /tmp/au -- python3 $T --steps 20 --check $R/check-$m-$rp-$rep.json > $R/out-$m-$rp-$rep.txt 2> $R/err-$m-$rp-$rep.txt
    echo "rc $?" >> $R/err-$m-$rp-$rep.txt
    grep -h '^==ATOMUTIL==.*timing\|passes' /tmp/au.counters.csv >> $R/err-$m-$rp-$rep.txt 2>/dev/null
    cp /tmp/au.report.csv $R/report-$m-$rp-$rep.csv 2>/dev/null; ls /tmp/au.* >> $R/err-$m-$rp-$rep.txt
  done; done
done
echo "train $SECONDS" >> $R/progress
cd $OUT && tar czf u1.tgz u1 && cd - > /dev/null
ATOMUTIL_REPLAY=user timeout $((585 - SECONDS)) ctest --test-dir build -L 'device|hostile' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $? $SECONDS" >> $R/progress
cd $OUT && rm -f u1.tgz && tar czf u1.tgz u1 && rm -rf u1
