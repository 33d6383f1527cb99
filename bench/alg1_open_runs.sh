#!/bin/sh
# The open configurations of docs/algorithm1-correction.md section 5, run to completion
# with broadcast monitors (docs/por.md section 4.4) on the compiled kernel, one at a time:
# states, depth, CPU and wall seconds, peak RSS and the verdict of each.
# Usage: sh bench/alg1_open_runs.sh [NAME...]   (default: every configuration below, in order)
#   names: x2-empty x2-empty-published w2-empty x2-edge x2-edge-published w2-edge
#          w2-edge-published x2-complete w2-complete five-path
# Output: one report per configuration in $OUT (default /tmp/alg1-open-runs), NAME.json,
# and its /usr/bin/time line in NAME.time; checkpoints in $OUT/NAME.ckpt (RESUME=1: resume
# from them).
set -e
FISHEYE=${FISHEYE:-.venv/bin/fisheye}
OUT=${OUT:-/tmp/alg1-open-runs}
mkdir -p "$OUT"
X2='p0: bcast(X,1), bcast(X,2); p1: bcast(Y,3), bcast(Y,4); p2: bcast(Z,5), bcast(Z,6)'
W2='p0: write(X,1), write(X,2); p1: write(Y,3), write(Y,4); p2: write(Z,5), write(Z,6)'
F5='p0: write(X,1); p1: write(Y,2); p2: read(X), read(Y); p3: read(Y), read(X); p4: read(X)'
PATH5='p0:p1,p1:p2,p2:p3,p3:p4'
run() {  # NAME PROGRAM GRAPH MODEL VARIANT
    name=$1; shift
    /usr/bin/time -f "$name peak_rss_kb=%M cpu_s=%U+%S wall_s=%e" -o "$OUT/$name.time" \
        nice -n 5 "$FISHEYE" explore "$1" --graph "$2" --model "$3" --variant "$4" \
        --option monitors=true --kernel compiled --memory 6G --checkpoint "$OUT/$name.ckpt" \
        ${RESUME:+--resume "$OUT/$name.ckpt"} \
        --save "$OUT/$name.cx" --json > "$OUT/$name.json" || true
    python3 - "$OUT/$name.json" "$OUT/$name.time" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(open(sys.argv[2]).read().strip(), "complete", r["complete"], "states", r["states"],
      "depth", r["max_depth"], "complete_runs", r["terminal_states"], "histories", r["histories"],
      "deadlocks", r["deadlocks"], "violated", sorted({v["violates"] for v in r["violations"]}),
      "cpu_seconds", r.get("cpu_seconds"))
PY
}
names=${*:-x2-empty x2-empty-published w2-empty x2-edge x2-edge-published w2-edge w2-edge-published x2-complete w2-complete five-path}
for n in $names; do
    case $n in
        x2-empty) run "$n" "$X2" empty none corrected ;;
        x2-empty-published) run "$n" "$X2" empty none published ;;
        w2-empty) run "$n" "$W2" empty cc corrected ;;
        x2-edge) run "$n" "$X2" p0:p1 none corrected ;;
        x2-edge-published) run "$n" "$X2" p0:p1 none published ;;
        w2-edge) run "$n" "$W2" p0:p1 cc corrected ;;
        w2-edge-published) run "$n" "$W2" p0:p1 cc published ;;
        x2-complete) run "$n" "$X2" complete none corrected ;;
        w2-complete) run "$n" "$W2" complete cc corrected ;;
        five-path) run "$n" "$F5" "$PATH5" fisheye corrected ;;
        *) echo "unknown configuration $n" >&2; exit 2 ;;
    esac
done
