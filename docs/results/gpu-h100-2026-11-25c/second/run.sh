#!/bin/bash
R=$OUT/g5; . .debs/pre.sh
mkdir -p /tmp/old && tar xf .debs/old.tar -C /tmp/old && cmake -S /tmp/old -B /tmp/old/build -DATOMUTIL_CUDA_ARCHS=native > $R/oldcfg.log 2>&1 && cmake --build /tmp/old/build -j16 > $R/oldbuild.log 2>&1 || echo OLD BUILD FAILED
echo "builds $SECONDS" > $R/progress
for i in $(seq 1 22); do
  for v in new old; do
    B=$([ $v = old ] && echo /tmp/old/build || echo build)
    ctest --test-dir $B -R 'hostile[.]graphs' --output-on-failure > $R/g-$v-$i.log 2>&1; echo "$v $i $?" >> $R/graphs.txt
  done
  [ $SECONDS -gt 240 ] && break
done
echo "graphs $SECONDS" >> $R/progress
awk '{n[$1]++; if($3!=0) f[$1]++} END{for(k in n) print k, n[k], "runs", f[k]+0, "failed"}' $R/graphs.txt | tee $R/graphs-summary.txt
timeout $((585 - SECONDS)) ctest --test-dir build -L 'device|hostile' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $? $SECONDS" >> $R/progress
grep -E "tests passed|\(Failed\)" $R/ctest.log
cd $OUT && tar czf g5.tgz g5 && rm -rf g5
