#!/bin/sh
# Peak RSS and CPU time of the compiled exhaustive search of fig6 --graph paper
# (3.33 M states) without a memory budget and under two budgets (the small one forces
# 256-state kernel calls and spills every level).  Usage: sh bench/explore_memory.sh
set -e
FISHEYE=${FISHEYE:-.venv/bin/fisheye}
for mem in none 512M 64M; do
    opt=""; [ "$mem" = none ] || opt="--memory $mem"
    /usr/bin/time -f "memory=$mem peak_rss_kb=%M cpu_s=%U+%S wall_s=%e" \
        "$FISHEYE" explore fig6 --graph paper $opt --json > /tmp/explore-memory-$mem.json || true
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('  states', r['states'], 'cpu_seconds', r['cpu_seconds'], 'states/cpu_s', round(r['states']/r['cpu_seconds']))" /tmp/explore-memory-$mem.json
done
# three writers on two registers' worth of edges, cut at 6 M states: levels wider than the budget
S='p0: write(X,1), write(X,2); p1: write(Y,3), write(Y,4); p2: write(Z,5), write(Z,6)'
for mem in none 400M; do
    opt=""; [ "$mem" = none ] || opt="--memory $mem"
    /usr/bin/time -f "writers memory=$mem peak_rss_kb=%M cpu_s=%U+%S" \
        "$FISHEYE" explore "$S" --graph p0:p1 $opt --max-states 6000000 --json > /tmp/explore-memory-w.json || true
done
# the same cut at 16 M states under 200M: the visited set (128 MB) outgrows what the budget
# leaves, and each level's merge into it goes through a file a piece at a time
/usr/bin/time -f "writers memory=200M max-states=16M peak_rss_kb=%M cpu_s=%U+%S" \
    "$FISHEYE" explore "$S" --graph p0:p1 --memory 200M --max-states 16000000 --json \
    > /tmp/explore-memory-w16.json || true
