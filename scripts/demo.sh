#!/usr/bin/env bash
# The main job: what the paper claims, checked by execution.
#  1. Figure 3/4: every schedule of paris-berlin-newyork under Algorithms 1+2, without and with
#     the paris-berlin edge: with the edge, berlin cannot read 1 once paris has read 2.
#  2. Figure 6 / Table 1: the outcomes of x? and y? by execution (abstraction level: Algorithm 2
#     over the broadcast specification), for the complete (SC), paper (fisheye) and empty (CC) graphs.
#  3. Table 1 by checking every candidate history under SC, CC and fisheye.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
fe=.venv/bin/fisheye
status=0
run() { echo; echo "\$ fisheye $*"; "$fe" "$@" 2>/dev/null || status=$?; }
run explore paris-berlin-newyork --graph empty
run explore paris-berlin-newyork --graph paper
for g in complete paper empty; do run explore fig6 --level abstract --graph "$g"; done
run table1
exit "$status"
