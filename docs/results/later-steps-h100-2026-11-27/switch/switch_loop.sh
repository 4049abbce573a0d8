# $1 seconds: launches (8 threads, 8 streams each; and with --graph) under --launch-count 50:
# the launch callbacks are switched off while other threads launch.  Each run's exit status,
# masked output and rows against the plain run's; the switch line must say 1.
P=build/bin/atomutil-profile; L=build/bin/launches; mkdir -p $R/switch; n=0
mask() { sed -E 's/wall_ms=[0-9.]+/wall_ms=#/' "$1"; }
for g in "" "--graph"; do $L -n 4000 -s 8 -t 8 $g > $R/switch/plain$g.out 2>&1; echo "plain$g $?" >> $R/switch/runs.txt; done
t0=$SECONDS
while [ $((SECONDS - t0)) -lt $1 ]; do
  for g in "" "--graph"; do
    n=$((n+1)); rm -f /tmp/sw.*
    $P -q --csv -o /tmp/sw --launch-count 50 -- $L -n 4000 -s 8 -t 8 $g > /tmp/sw.out 2> /tmp/sw.err; rc=$?
    rows=$(grep -c '^"' /tmp/sw.counters.csv 2>/dev/null); offs=$(grep -ho 'switched off [0-9]* times' /tmp/sw.counters.csv | head -1)
    same=$([ "$(mask /tmp/sw.out)" = "$(mask $R/switch/plain$g.out)" ] && echo same || echo DIFF)
    echo "run $n g=${g:-none} rc $rc rows $rows $same '$offs'" >> $R/switch/runs.txt
    [ $rc = 0 ] && [ $same = same ] || cp /tmp/sw.err $R/switch/err-$n.txt
  done
done
awk '/^run/{n++; if($5!=0||$9!="same")b++} END{print "switch loop: runs", n, "bad", b+0}' $R/switch/runs.txt | tee -a $R/switch/runs.txt
