#!/bin/bash
R=$OUT/k1; . .debs/pre.sh
mkdir -p $R/scale
timeout 150 ctest --test-dir build -R 'device[.]select' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $?"; grep -E "Test +#|tests passed" $R/ctest.log
echo "ctest done $SECONDS"
timeout $((585 - SECONDS)) scripts/bench_scale.sh build --pairs 8 --steps 20 --no-floor --modes plain,selected,capped,counted --out $R/scale --pack $OUT/k1s.tgz > $R/bench.log 2>&1; echo "bench rc $?"; tail -9 $R/bench.log
cp $R/bench.log $R/ctest.log $R/gpu.txt $R/scale/ ; rm -rf $R/scale/cache; cd $OUT && rm -f k1s.tgz && tar czf k1.tgz -C $R scale && rm -rf $R
