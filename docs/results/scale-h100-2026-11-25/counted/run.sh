#!/bin/bash
R=$OUT/i2; . .debs/pre.sh
timeout $((585 - SECONDS)) scripts/bench_scale.sh build --pairs 10 --steps 20 --no-floor --modes plain,selected,counted,capped --out $R/scale --pack $OUT/i2.tgz > $R/bench.log 2>&1; echo "bench rc $?"; tail -14 $R/bench.log
cp $R/bench.log $R/scale/ ; rm -rf $R/scale/cache; cd $OUT && tar czf i2.tgz -C $R scale && rm -rf $R
