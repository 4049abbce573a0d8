# later_steps_probe.py alone and under atomutil in several configurations, rotated; $1 reps
P=build/bin/atomutil-profile; PD=/tmp/p/build/bin/atomutil-profile
W=$(pwd); mkdir -p /tmp/p && tar cf - --exclude=./build --exclude=./.debs . | tar xf - -C /tmp/p
(cd /tmp/p && patch -p1 < $W/.debs/deinit.patch > $R/patch.log 2>&1) || echo PATCH FAILED
cmake -S /tmp/p -B /tmp/p/build -DATOMUTIL_CUDA_ARCHS=native -DATOMUTIL_ENABLE_TESTS=OFF > $R/pcfg.log 2>&1 && cmake --build /tmp/p/build -j16 --target atomutil-profile atomutil_inject > $R/pbuild.log 2>&1 || echo PATCHED BUILD FAILED
echo "probe builds $SECONDS" >> $R/progress
run() { # name rep cmd...
  local n=$1 r=$2; shift 2
  local t0=$(date +%s.%N)
  "$@" > $R/probe/$n-$r.out 2> $R/probe/$n-$r.err; local rc=$?
  echo "$n $r rc $rc wall $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{print b-a}') $(grep -h '^probe:' $R/probe/$n-$r.out)" >> $R/probe/summary.txt
}
mkdir -p $R/probe
S=scripts/later_steps_probe.py
for r in $(seq 1 $1); do
  run plain $r python3 $S $R/probe/plain-$r.json
  run R $r $P -q --timing --profile-from-start off -k kernelHistogram1D -o /tmp/au-R -- python3 $S $R/probe/R-$r.json
  run RC $r $P -q --timing --profile-from-start off -k kernelHistogram1D --launch-count 1 -o /tmp/au-RC -- python3 $S $R/probe/RC-$r.json
  ATOMUTIL_PROBE_DEINIT=1 run RCD $r $PD -q --timing --profile-from-start off -k kernelHistogram1D --launch-count 1 -o /tmp/au-RCD -- python3 $S $R/probe/RCD-$r.json
  run N $r $P -q --timing --profile-from-start off -k NO_SUCH_KERNEL_XYZ -o /tmp/au-N -- python3 $S $R/probe/N-$r.json
  [ $r = 1 ] && run RA $r $P -q --timing --profile-from-start off -o /tmp/au-RA -- python3 $S $R/probe/RA-$r.json
done
grep -h "probe: cuptiProfilerDeInitialize" /tmp/au-RCD*.csv $R/probe/RCD-*.err 2>/dev/null | head -3 >> $R/probe/summary.txt
