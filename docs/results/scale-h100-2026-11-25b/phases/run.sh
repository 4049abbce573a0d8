#!/bin/bash
# where the time outside train.py's clock goes: absolute timestamps of phases, plain vs modes
R=$OUT/ph; . .debs/pre.sh
P=$(pwd)/build/bin/atomutil-profile; T=.debs/train_t.py
export ATOMUTIL_CACHE_DIR=$R/cache
python3 $T --steps 2 > /dev/null 2>&1
order=(P S SO NE)
for rep in 0 1 2 3; do
  for k in 0 1 2 3; do
    m=${order[$(( (k + rep) % 4 ))]}; e=on
    base=(python3 $T --steps 20)
    case $m in
      P) cmd=("${base[@]}") ;;
      S) cmd=($P -q --timing -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      SO) cmd=($P -q --timing --no-opcodes -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      NE) e=off; cmd=($P -q --timing --no-opcodes -k NO_SUCH_KERNEL_XYZ -o /tmp/au -- "${base[@]}") ;;
    esac
    rm -rf /tmp/au.*
    echo "PHASE launch $EPOCHREALTIME" > $R/e-$m-$rep.txt
    ATOMUTIL_EARLY_SETUP=$e "${cmd[@]}" > /dev/null 2>> $R/e-$m-$rep.txt; rc=$?
    echo "PHASE done $EPOCHREALTIME" >> $R/e-$m-$rep.txt
    grep -h 'timing' /tmp/au.counters.csv >> $R/e-$m-$rep.txt 2>/dev/null
    echo "rc $rc" >> $R/e-$m-$rep.txt
  done
done
cd $OUT && tar czf ph.tgz --exclude=cache ph && rm -rf ph
