#!/bin/bash
R=$OUT/f1; . .debs/pre.sh
timeout 330 ctest --test-dir build -L 'device|hostile' --output-on-failure > $R/ctest.log 2>&1; grep -E "tests passed|tests failed|\(Failed\)|Not Run|Timeout" $R/ctest.log | head -20
echo "ctest done $SECONDS"
cd $OUT && tar czf f1a.tgz f1 && cd - > /dev/null
timeout $((570 - SECONDS)) scripts/sanitize_inject.sh -o $R/san -n 2 -s tsan > $R/san.log 2>&1; echo "san rc $?"; tail -4 $R/san.log
echo "san done $SECONDS"
find $R/san -size +2M -delete 2>/dev/null
cd $OUT && rm -f f1a.tgz && tar czf f1.tgz f1 && rm -rf f1
