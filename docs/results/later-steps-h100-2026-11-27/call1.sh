#!/bin/bash
R=$OUT/c1; . .debs/pre.sh
echo "build $SECONDS" > $R/progress
. .debs/probe.sh 2
echo "probe done $SECONDS" >> $R/progress
cat $R/probe/summary.txt
timeout $((585 - SECONDS)) ctest --test-dir build -L 'device|hostile' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $? $SECONDS" >> $R/progress
grep -E "tests passed|\(Failed\)|Not Run|Timeout" $R/ctest.log
rm -rf $R/stress/work /tmp/p
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
