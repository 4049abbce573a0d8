#!/bin/bash
# fresh one-GPU machine: sequential pairs until the limit
R=$OUT/d; . .debs/pre.sh
echo "build done $SECONDS" > $R/times.txt
timeout $((430 - SECONDS)) scripts/bench_scale.sh --modes plain,selected,capped --pairs 40 --no-floor --out $R/bench --pack $OUT/d-bench.tgz > $R/bench.log 2>&1
echo "bench rc $? at $SECONDS" >> $R/times.txt
python3 scripts/bench_scale.py $R/bench > $R/summary.txt 2>&1; tail -3 $R/summary.txt
rm -rf $R/bench/cache; cd $OUT && tar czf d.tgz d && rm -rf d
