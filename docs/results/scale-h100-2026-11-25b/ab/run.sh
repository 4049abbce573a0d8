#!/bin/bash
# A/B: HEAD (old) against the working tree (new): P, S, C with --timing and train.py's step clock
R=$OUT/ab; . .debs/pre.sh
mkdir -p /tmp/old && tar xf .debs/old.tar -C /tmp/old
( cd /tmp/old && cmake -S . -B build -DATOMUTIL_CUDA_ARCHS=native > $R/old-cfg.log 2>&1 && cmake --build build -j16 > $R/old-build.log 2>&1 ) || { echo OLD BUILD FAILED; tail -20 $R/old-build.log; }
echo "old build $SECONDS"
T=examples/python/train.py
export ATOMUTIL_CACHE_DIR=$R/cache
python3 $T --steps 2 > /dev/null 2>&1
build/bin/atomutil-profile -q --launches-per-kernel 3 -o /tmp/warm -- python3 $T --steps 2 > /dev/null 2>&1
order=(P So Sn Co Cn)
for rep in 0 1 2 3 4; do
  for k in 0 1 2 3 4; do
    m=${order[$(( (k + rep) % 5 ))]}
    base=(python3 $T --steps 20 --check $R/c-$m-$rep.json)
    case $m in
      P) cmd=("${base[@]}") ;;
      So) cmd=(/tmp/old/build/bin/atomutil-profile -q --timing -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      Sn) cmd=(build/bin/atomutil-profile -q --timing -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      Co) cmd=(/tmp/old/build/bin/atomutil-profile -q --timing --launches-per-kernel 3 -o /tmp/au -- "${base[@]}") ;;
      Cn) cmd=(build/bin/atomutil-profile -q --timing --launches-per-kernel 3 -o /tmp/au -- "${base[@]}") ;;
    esac
    rm -rf /tmp/au.*
    s=$EPOCHREALTIME; "${cmd[@]}" > $R/o-$m-$rep.txt 2> $R/e-$m-$rep.txt; rc=$?; t=$(python3 -c "print(round($EPOCHREALTIME - $s, 3))")
    grep -h 'timing' /tmp/au.counters.csv >> $R/e-$m-$rep.txt 2>/dev/null
    ls /tmp/au.cubins 2>/dev/null | wc -l >> $R/e-$m-$rep.txt
    echo "$m,$rep,$t,$rc" >> $R/j.csv
  done
  echo "rep $rep $SECONDS"
  cd $OUT && tar czf ab.tgz --exclude=cache ab && cd - > /dev/null
done
cd $OUT && tar czf ab.tgz --exclude=cache ab && rm -rf ab
