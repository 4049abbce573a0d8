#!/bin/bash
R=$OUT/k3; . .debs/pre.sh
mkdir -p /tmp/old && tar xf .debs/old.tar -C /tmp/old && cmake -S /tmp/old -B /tmp/old/build -DATOMUTIL_CUDA_ARCHS=native > $R/oldcfg.log 2>&1 && cmake --build /tmp/old/build -j16 > $R/oldbuild.log 2>&1 || echo OLD BUILD FAILED
echo "builds $SECONDS" > $R/progress
T=examples/python/train.py
export ATOMUTIL_CACHE_DIR=/tmp/aucache
./build/bin/atomutil-profile -q --launches-per-kernel 3 -o /tmp/warm -- python3 $T --steps 20 > /dev/null 2>&1
for rep in 0 1 2; do
  for v in old new; do
    P=$([ $v = old ] && echo /tmp/old/build/bin/atomutil-profile || echo $(pwd)/build/bin/atomutil-profile)
    for m in sel cap; do
      case $m in sel) o="-k kernelHistogram1D";; cap) o="--launches-per-kernel 3";; esac
      rm -rf /tmp/au.*
      /usr/bin/time -f "%e" -o $R/wall-$m-$v-$rep.txt $P -q --timing $o -o /tmp/au -- python3 $T --steps 20 --check $R/check-$m-$v-$rep.json > $R/out-$m-$v-$rep.txt 2> $R/err-$m-$v-$rep.txt
      echo "rc $?" >> $R/err-$m-$v-$rep.txt
      grep -h '^==ATOMUTIL==.*\(timing\|warning\|code:\)' /tmp/au.counters.csv | cut -c1-400 >> $R/err-$m-$v-$rep.txt 2>/dev/null
    done
  done
done
echo "ab $SECONDS" >> $R/progress
timeout $((560 - SECONDS)) ctest --test-dir build -R 'device[.](select|opcodes)' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $? $SECONDS" >> $R/progress
cd $OUT && tar czf k3.tgz k3 && rm -rf k3
