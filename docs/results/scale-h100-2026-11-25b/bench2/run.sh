#!/bin/bash
R=$OUT/c2; . .debs/pre.sh
mkdir -p $R/scale
./build/bin/cupti_floor > $R/scale/floor.txt 2>&1; echo "floor rc $?"; tail -2 $R/scale/floor.txt
timeout $((585 - SECONDS)) scripts/bench_scale.sh build --pairs 14 --steps 20 --no-floor --modes plain,selected,capped --out $R/scale --pack $OUT/c2s.tgz > $R/bench.log 2>&1; echo "bench rc $?"; tail -9 $R/bench.log
cp $R/bench.log $R/gpu.txt $R/scale/ ; rm -rf $R/scale/cache; cd $OUT && rm -f c2s.tgz && tar czf c2.tgz -C $R scale && rm -rf $R
