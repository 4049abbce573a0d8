#!/bin/bash
R=$OUT/f3; . .debs/pre.sh
mkdir -p $R && cp -r .debs/scale_f2 $R/scale
timeout $((585 - SECONDS)) scripts/bench_scale.sh build --pairs 10 --first-rep 5 --steps 20 --no-floor --out $R/scale > $R/bench.log 2>&1; echo "bench rc $?"; tail -8 $R/bench.log
rm -rf $R/scale/cache
echo "bench done $SECONDS"
cd $OUT && tar czf f3.tgz f3 && rm -rf f3
