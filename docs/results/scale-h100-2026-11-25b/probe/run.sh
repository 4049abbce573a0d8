#!/bin/bash
# factorial: opcodes on/off x early on/off x measured once/none, plus plain; 3 reps, order rotated
R=$OUT/p2; . .debs/pre.sh
P=$(pwd)/build/bin/atomutil-profile
cfgs=(plain o1e1m1 o1e1m0 o1e0m1 o1e0m0 o0e1m1 o0e1m0 o0e0m1 o0e0m0)
run() { local c=$1 rep=$2
  if [ $c = plain ]; then python3 .debs/launch_path_probe.py > $R/$c-$rep.txt 2>&1; return; fi
  local o=${c:1:1} e=${c:3:1} m=${c:5:1} args=(-q)
  [ $o = 0 ] && args+=(--no-opcodes)
  [ $m = 1 ] && args+=(-k kernelHistogram1D --launch-count 1) || args+=(-k NO_SUCH_KERNEL_XYZ)
  local env=(); [ $e = 0 ] && env=(ATOMUTIL_EARLY_SETUP=off)
  env "${env[@]}" $P "${args[@]}" -o /tmp/pr-$c -- python3 .debs/launch_path_probe.py > $R/$c-$rep.txt 2>&1
}
for rep in 0 1 2; do
  for i in $(seq 0 8); do c=${cfgs[$(( (i + rep*3) % 9 ))]}; run $c $rep; done
  echo "rep $rep done $SECONDS"
done
cd $OUT && tar czf p2.tgz p2 && rm -rf p2
