#!/bin/bash
R=$OUT/i4; . .debs/pre.sh
echo "build $SECONDS" > $R/progress
timeout $((360 - SECONDS)) ctest --test-dir build -L 'device|hostile' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $?" >> $R/progress
grep -E "tests passed|tests failed|\(Failed\)|Not Run|Timeout|Test +#" $R/ctest.log | tail -25
echo "ctest done $SECONDS" | tee -a $R/progress
cd $OUT && tar czf i4.tgz i4 && cd - > /dev/null
STRESS_PRELOAD=$(pwd)/build/tests/hostile/libsegv_where.so timeout $((575 - SECONDS)) scripts/stress.sh -o $R/stress -r 200 -c 5 > $R/stress.log 2>&1
tail -3 $R/stress.log
awk -F, 'NR>1{n[$1]++; l[$1]+=$9; if($6==0||$4!=$5)c[$1]++} END{for(k in n) print k, n[k], c[k]+0, l[k]+0}' $R/stress/runs.csv
rm -rf $R/stress/work
cd $OUT && rm -f i4.tgz && tar czf i4.tgz i4 && rm -rf i4
