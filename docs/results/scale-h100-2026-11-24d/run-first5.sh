#!/bin/bash
R=$OUT/f2; . .debs/pre.sh
timeout $((585 - SECONDS)) scripts/bench_scale.sh build --pairs 5 --steps 20 --out $R/scale > $R/bench.log 2>&1; echo "bench rc $?"; tail -8 $R/bench.log
du -sh $R/scale/cache
echo "bench done $SECONDS"
cd $OUT && tar czf f2.tgz f2 && rm -rf f2
