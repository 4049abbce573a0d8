#!/bin/bash
# several GPUs: the bench's modes of a rep at once, one GPU each (--parallel), with an A/A control
R=$OUT/c; . .debs/pre.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,pci.bus_id --format=csv > $R/gpus.txt 2>&1
echo "build done $SECONDS" > $R/times.txt
timeout $((580 - SECONDS)) scripts/bench_scale.sh --parallel --modes plain,selected,capped,control --pairs 60 --no-floor --out $R/bench --pack $OUT/c-bench.tgz > $R/bench.log 2>&1
echo "bench rc $? at $SECONDS" >> $R/times.txt
python3 scripts/bench_scale.py $R/bench > $R/summary.txt 2>&1; tail -4 $R/summary.txt
rm -rf $R/bench/cache; cd $OUT && tar czf c.tgz c && rm -rf c
