#!/bin/bash
# where the selected run's extra loop time goes: train.py's own per-step clock under configurations
R=$OUT/j1; . .debs/pre.sh
git -C . log -1 --format=%h > /dev/null 2>&1
P=$(pwd)/build/bin/atomutil-profile; T=examples/python/train.py
export ATOMUTIL_CACHE_DIR=$R/cache
python3 $T --steps 2 > /dev/null 2>&1
$P -q --launches-per-kernel 3 -o /tmp/warm -- python3 $T --steps 2 > /dev/null 2>&1
order=(P N NE S SO SE C)
for rep in 0 1 2 3 4 5; do
  for k in 0 1 2 3 4 5 6; do
    m=${order[$(( (k + rep) % 7 ))]}
    e=on; base=(python3 $T --steps 20 --check $R/c-$m-$rep.json)
    case $m in
      P) cmd=("${base[@]}") ;;
      N) cmd=($P -q --timing --no-opcodes -k NO_SUCH_KERNEL_XYZ -o /tmp/au -- "${base[@]}") ;;
      NE) e=off; cmd=($P -q --timing --no-opcodes -k NO_SUCH_KERNEL_XYZ -o /tmp/au -- "${base[@]}") ;;
      S) cmd=($P -q --timing -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      SO) cmd=($P -q --timing --no-opcodes -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      SE) e=off; cmd=($P -q --timing -k kernelHistogram1D -o /tmp/au -- "${base[@]}") ;;
      C) cmd=($P -q --timing --launches-per-kernel 3 -o /tmp/au -- "${base[@]}") ;;
    esac
    rm -rf /tmp/au.*
    s=$EPOCHREALTIME; ATOMUTIL_EARLY_SETUP=$e "${cmd[@]}" > /dev/null 2> $R/e-$m-$rep.txt; rc=$?; t=$(python3 -c "print(round($EPOCHREALTIME - $s, 3))")
    grep -h 'timing' /tmp/au.counters.csv >> $R/e-$m-$rep.txt 2>/dev/null
    echo "$m,$rep,$t,$rc" >> $R/j.csv
  done
  echo "rep $rep $SECONDS"
  cd $OUT && tar czf j1.tgz --exclude=cache j1 && cd - > /dev/null
done
python3 - $R > $R/summary.txt <<'PY'
import json,sys,statistics as st,glob,os
d=sys.argv[1]; rows=[l.strip().split(',') for l in open(d+'/j.csv')]
cfg=["P","N","NE","S","SO","SE","C"]
def load(m,r):
    try: return json.load(open(f"{d}/c-{m}-{r}.json"))["seconds"]
    except Exception: return None
for m in cfg:
    ss=[load(m,r) for r in range(6)]; ss=[s for s in ss if s]
    wall=[float(t) for mm,r,t,rc in rows if mm==m]
    if not ss: continue
    steps=[s["steps"] for s in ss]
    dl=lambda i: st.median((x[i]-(x[i-1] if i else 0)) for x in steps)
    print(f"{m:3} wall {st.median(wall):6.2f} setup {st.median(s['setup'] for s in ss):5.2f} loop {st.median(s['loop'] for s in ss):5.3f} "
          f"step0 {dl(0):.3f} step1 {dl(1):.3f} step2-9 {st.median(x[9]-x[1] for x in steps):.3f} step10 {dl(10):.3f} step11-19 {st.median(x[19]-x[10] for x in steps):.3f} drain {st.median(s['loop']-s['steps'][-1] for s in ss):.3f}")
PY

cat $R/summary.txt
cd $OUT && tar czf j1.tgz --exclude=cache j1 && rm -rf j1
