#!/bin/bash
R=$OUT/c2; . .debs/pre.sh
echo "build $SECONDS" > $R/progress
{ cat /sys/devices/system/clocksource/clocksource0/current_clocksource /sys/devices/system/clocksource/clocksource0/available_clocksource; gcc -O2 -o /tmp/clk .debs/clock.c && /tmp/clk; /tmp/clk; which perf; cat /proc/sys/kernel/perf_event_paranoid; lscpu | grep -E "Model name|MHz|Hypervisor"; } > $R/host.txt 2>&1
cat $R/host.txt
W=$(pwd); mkdir -p /tmp/k && tar cf - --exclude=./build --exclude=./.debs . | tar xf - -C /tmp/k
(cd /tmp/k && patch -p1 < $W/.debs/knobs.patch > $R/patch.log 2>&1) || echo PATCH FAILED
cmake -S /tmp/k -B /tmp/k/build -DATOMUTIL_CUDA_ARCHS=native -DATOMUTIL_ENABLE_TESTS=OFF > $R/kcfg.log 2>&1 && cmake --build /tmp/k/build -j16 --target atomutil-profile atomutil_inject > $R/kbuild.log 2>&1 || { echo KNOB BUILD FAILED; tail $R/kbuild.log; }
echo "kbuild $SECONDS" >> $R/progress
P=build/bin/atomutil-profile; PK=/tmp/k/build/bin/atomutil-profile
S="scripts/later_steps_probe.py --steps 30 --ops 1000"
mkdir -p $R/probe
run() { local n=$1 r=$2; shift 2; local t0=$(date +%s.%N)
  "$@" > $R/probe/$n-$r.out 2> $R/probe/$n-$r.err; local rc=$?
  echo "$n $r rc $rc wall $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{print b-a}') $(grep -h '^probe:' $R/probe/$n-$r.out)" >> $R/probe/summary.txt; }
K="-q --timing -k NO_SUCH_KERNEL_XYZ"
for r in 1 2 3; do
  run plain $r python3 $S $R/probe/plain-$r.json
  run N $r $P $K -o /tmp/au-N -- python3 $S $R/probe/N-$r.json
  run NK $r $PK $K -o /tmp/au-NK -- python3 $S $R/probe/NK-$r.json
  ATOMUTIL_PROBE_NOTIME=1 run NT $r $PK $K -o /tmp/au-NT -- python3 $S $R/probe/NT-$r.json
  ATOMUTIL_PROBE_EARLY=1 run NE $r $PK $K -o /tmp/au-NE -- python3 $S $R/probe/NE-$r.json
  [ $SECONDS -gt 400 ] && break
done
cat $R/probe/summary.txt
echo "probe $SECONDS" >> $R/progress
if command -v perf > /dev/null; then
  timeout 120 perf record -F 2000 -g -o /tmp/perf.data -- $P $K -o /tmp/au-perf -- python3 $S $R/probe/perf.json > $R/perf-run.log 2>&1
  perf report -i /tmp/perf.data --no-children --sort dso,sym --stdio 2>/dev/null | head -150 > $R/perf-report.txt
  perf report -i /tmp/perf.data --no-children --sort dso --stdio 2>/dev/null | head -40 > $R/perf-dso.txt
  head -60 $R/perf-dso.txt
fi
echo "done $SECONDS" >> $R/progress
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
