#!/bin/bash
R=$OUT/i3; . .debs/pre.sh
timeout $((588 - SECONDS)) scripts/bench_scale.sh build --pairs 6 --steps 20 --out $R/scale --pack $OUT/i3.tgz > $R/bench.log 2>&1; echo "bench rc $?"; tail -12 $R/bench.log
cp $R/bench.log $R/scale/ ; rm -rf $R/scale/cache; cd $OUT && tar czf i3.tgz -C $R scale && rm -rf $R
