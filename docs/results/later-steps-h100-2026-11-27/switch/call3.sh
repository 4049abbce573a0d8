#!/bin/bash
R=$OUT/c3; . .debs/pre.sh
echo "build $SECONDS" > $R/progress
timeout 330 ctest --test-dir build -L 'device|hostile' --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc $? $SECONDS" >> $R/progress
grep -E "tests passed|\(Failed\)|Not Run|Timeout" $R/ctest.log
P=build/bin/atomutil-profile; S=scripts/later_steps_probe.py; mkdir -p $R/probe
run() { local n=$1 r=$2; shift 2; "$@" > $R/probe/$n-$r.out 2> $R/probe/$n-$r.err; local rc=$?
  echo "$n $r rc $rc $(grep -h '^probe:' $R/probe/$n-$r.out) $(grep -ho 'switched off [0-9]* times' /tmp/au-$n.counters.csv 2>/dev/null)" >> $R/probe/summary.txt; }
for r in 1 2; do
  rm -f /tmp/au-*
  run plain $r python3 $S $R/probe/plain-$r.json
  run N $r $P -q --timing -k NO_SUCH_KERNEL_XYZ -o /tmp/au-N -- python3 $S $R/probe/N-$r.json
  run R $r $P -q --timing --profile-from-start off -k kernelHistogram1D -o /tmp/au-R -- python3 $S $R/probe/R-$r.json
  run RC $r $P -q --timing --profile-from-start off -k kernelHistogram1D --launch-count 1 -o /tmp/au-RC -- python3 $S $R/probe/RC-$r.json
done
cat $R/probe/summary.txt; echo "probe $SECONDS" >> $R/progress
. .debs/switch_loop.sh 60
echo "switch $SECONDS" >> $R/progress
STRESS_PRELOAD=$(pwd)/build/tests/hostile/libsegv_where.so timeout $((585 - SECONDS)) scripts/stress.sh -o $R/stress -r 200 -c 5 > $R/stress.log 2>&1
tail -1 $R/stress.log
awk -F, 'NR>1{n[$1]++; l[$1]+=$9; if($6==0||$4!=$5)c[$1]++} END{for(k in n) print k, n[k], c[k]+0, l[k]+0}' $R/stress/runs.csv > $R/stress-summary.txt
rm -rf $R/stress/work
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
