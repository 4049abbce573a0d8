#!/bin/bash
# early set-up on (S) against off (SE), selected, paired and alternated: setup phase, first step, wall
R=$OUT/k2; . .debs/pre.sh
P=$(pwd)/build/bin/atomutil-profile; T=examples/python/train.py
export ATOMUTIL_CACHE_DIR=$R/cache
$P -q -k kernelHistogram1D -o /tmp/warm -- python3 $T --steps 2 > /dev/null 2>&1
for rep in $(seq 0 30); do
  [ $SECONDS -gt 290 ] && break
  for k in 0 1; do
    m=S; e=on; [ $(( (k + rep) % 2 )) = 1 ] && { m=SE; e=off; }
    rm -rf /tmp/au.*
    s=$EPOCHREALTIME; ATOMUTIL_EARLY_SETUP=$e $P -q --timing -k kernelHistogram1D -o /tmp/au -- python3 $T --steps 20 --check $R/c-$m-$rep.json > /dev/null 2> $R/e-$m-$rep.txt; rc=$?; t=$(python3 -c "print(round($EPOCHREALTIME - $s, 3))")
    grep -h timing /tmp/au.counters.csv >> $R/e-$m-$rep.txt 2>/dev/null
    echo "$m,$rep,$t,$rc" >> $R/k.csv
  done
done
rm -rf $R/cache; cd $OUT && tar czf k2.tgz k2 && rm -rf k2
