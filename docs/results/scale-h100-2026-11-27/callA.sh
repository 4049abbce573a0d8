#!/bin/bash
# fresh machine: hostile.graphs many times, then stress with segv_where, on HEAD's injection code
R=$OUT/a; . .debs/pre.sh
echo "build done $SECONDS" > $R/times.txt
for i in $(seq 1 60); do ctest --test-dir build -R 'hostile[.]graphs' > $R/g-$i.log 2>&1; rc=$?; echo "$i $rc" >> $R/graphs.txt; [ $rc = 0 ] && rm -f $R/g-$i.log; [ $SECONDS -gt 190 ] && break; done
awk '{n++; if($2!=0) f++} END{print "hostile.graphs:", n, "runs", f+0, "failed"}' $R/graphs.txt | tee -a $R/graphs.txt
echo "graphs done $SECONDS" >> $R/times.txt
STRESS_PRELOAD=$(pwd)/build/tests/hostile/libsegv_where.so timeout $((570 - SECONDS)) scripts/stress.sh -o $R/stress -r 200 -c 5 > $R/stress.log 2>&1
echo "stress rc $? at $SECONDS" >> $R/times.txt
tail -1 $R/stress.log
awk -F, 'NR>1{n[$1]++; l[$1]+=$9; if($6==0||$4!=$5)c[$1]++} END{for(k in n) print k, n[k], c[k]+0, l[k]+0}' $R/stress/runs.csv > $R/stress-summary.txt
rm -rf $R/stress/work
cd $OUT && tar czf a.tgz a && rm -rf a
