#!/bin/sh
# Whole-command CPU of `fisheye check FILE --model M` for two installations run back to
# back, file by file and model by model (old, new, old, new, ...), so that a loaded
# machine weighs on both alike: user+sys seconds from /usr/bin/time, peak RSS, and
# whether the two printed the same verdict (the first line of the output, without its
# time).  The numba caches of both are warmed by a first run that is not counted.
# Usage: sh bench/check_cpu_pairs.sh OLD_FISHEYE NEW_FISHEYE [FILE...]
#   default files: the Algorithm 2 runs of bench/histgen.py in $ALG2 (default
#   /tmp/ck/alg2: alg2_10000_{0,1,2}.json, alg2_100000_0.json);
#   MODELS (default "fisheye fisheye-2014"), ROUNDS (default 1), NICE (default 10).
# Example: sh bench/check_cpu_pairs.sh ../clone-of-main/.venv/bin/fisheye .venv/bin/fisheye
set -e
OLD=$1
NEW=$2
shift 2
ALG2=${ALG2:-/tmp/ck/alg2}
MODELS=${MODELS:-"fisheye fisheye-2014"}
ROUNDS=${ROUNDS:-1}
NICE=${NICE:-10}
if [ $# -eq 0 ]; then
    set -- "$ALG2/alg2_10000_0.json" "$ALG2/alg2_10000_1.json" "$ALG2/alg2_10000_2.json" \
        "$ALG2/alg2_100000_0.json"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() {  # FISHEYE FILE MODEL -> "cpu rss verdict"
    nice -n "$NICE" /usr/bin/time -f "%U %S %M" -o "$TMP/time" "$1" check "$2" --model "$3" \
        >"$TMP/out" 2>/dev/null || true
    verdict=$(head -n 1 "$TMP/out" | sed 's/, [0-9.]* s)$/)/')
    # the last line: /usr/bin/time puts "Command exited with non-zero status" before it
    tail -n 1 "$TMP/time" | awk -v v="$verdict" '{printf "%.2f %d %s\n", $1 + $2, $3 / 1024, v}'
}
for m in $MODELS; do  # warm-up
    run "$OLD" "$1" "$m" >/dev/null
    run "$NEW" "$1" "$m" >/dev/null
done
echo "uptime before: $(uptime)"
printf '%-28s %-13s %9s %9s %8s %8s  %s\n' file model "old cpu s" "new cpu s" "old MiB" "new MiB" verdicts
for r in $(seq "$ROUNDS"); do
    for f in "$@"; do
        for m in $MODELS; do
            old=$(run "$OLD" "$f" "$m")
            new=$(run "$NEW" "$f" "$m")
            same=differ
            [ "${old#* * }" = "${new#* * }" ] && same=same
            printf '%-28s %-13s %9s %9s %8s %8s  %s\n' "$(basename "$f")" "$m" "${old%% *}" "${new%% *}" \
                "$(echo "$old" | cut -d' ' -f2)" "$(echo "$new" | cut -d' ' -f2)" "$same"
        done
    done
done
echo "uptime after: $(uptime)"
