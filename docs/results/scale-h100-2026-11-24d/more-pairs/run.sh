#!/bin/bash
R=$OUT/h1; . .debs/pre.sh
mkdir -p $R && cp -r .debs/scale_f3 $R/scale
ATOMUTIL_CACHE_DIR=$R/scale/cache build/bin/atomutil-profile -q --launches-per-kernel 3 -o /tmp/warm -- python3 examples/python/train.py --steps 2 > /dev/null 2>&1   # file and listing caches
timeout 420 scripts/bench_scale.sh build --pairs 22 --first-rep 10 --steps 20 --no-floor --modes plain,selected,capped --out $R/scale > $R/bench.log 2>&1; echo "bench rc $?"; tail -8 $R/bench.log
rm -rf $R/scale/cache
cd $OUT && tar czf h1.tgz h1 && rm -rf h1
