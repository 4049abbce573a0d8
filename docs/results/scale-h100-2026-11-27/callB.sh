#!/bin/bash
# bench: plain,selected,capped pairs until the time limit (pack after every rep)
R=$OUT/$1; mkdir -p $R; for f in .debs/*.deb; do dpkg -x $f /tmp/csv; done; export LD_LIBRARY_PATH=/tmp/csv/usr/lib/x86_64-linux-gnu PYTHONUNBUFFERED=1
[ -x build/bin/atomutil-profile ] || { . .debs/pre.sh; }
git rev-parse HEAD > $R/commit.txt; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $R/gpu.txt
timeout $((585 - SECONDS)) scripts/bench_scale.sh --modes plain,selected,capped --pairs $2 --out $R/bench $3 --pack $OUT/$1.tgz > $R/bench.log 2>&1
python3 scripts/bench_scale.py $R/bench | tail -3
