#!/usr/bin/env bash
# A Spark standalone cluster on 127.0.0.1, started from the installed pyspark package with
# spark-class: one master and N workers (default: 2 workers of 1 core each).
#
#   scripts/spark-cluster.sh start [--workers N] [--cores C] [--memory SIZE]
#       starts the master and the workers, waits until every worker is registered, and
#       prints the master URL (spark://127.0.0.1:PORT) on stdout
#   scripts/spark-cluster.sh status
#       one line per process started (running or not) and the master URL;
#       exit status 0 when all of them run, 1 otherwise
#   scripts/spark-cluster.sh stop
#       ends the processes it started (their recorded PIDs) and only those
#
# Its state (PIDs, logs, work and shuffle directories, the master URL) lives in
# $FISHEYE_SPARK_CLUSTER (default: .spark-cluster/ in the repository); several clusters
# can run at once with different directories.  Use it with:
#   fisheye explore fig6 --spark --master "$(scripts/spark-cluster.sh start)" --checkpoint /tmp/ckpt
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${FISHEYE_SPARK_CLUSTER:-$ROOT/.spark-cluster}
PY=${PYTHON:-$ROOT/.venv/bin/python}
WAIT=${FISHEYE_SPARK_CLUSTER_WAIT:-90}   # seconds to wait for the master and the workers

die() { echo "spark-cluster: $*" >&2; exit 2; }

# The PID in $1 still runs the Spark daemon class $2 (PIDs are reused: never trust a bare number).
alive() {
  local pid=$1 cls=$2
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$cls"
}

daemons() {  # "name pid class" for each recorded process
  local f name
  for f in "$DIR"/*.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .pid)
    case $name in
      master) echo "$name $(cat "$f") org.apache.spark.deploy.master.Master" ;;
      *) echo "$name $(cat "$f") org.apache.spark.deploy.worker.Worker" ;;
    esac
  done
}

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for() {  # wait_for FILE PATTERN PID WHAT
  local file=$1 pattern=$2 pid=$3 what=$4 i
  for ((i = 0; i < WAIT * 5; i++)); do
    grep -q "$pattern" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$file" >&2; stop >/dev/null; die "$what exited (log: $file)"; }
    sleep 0.2
  done
  tail -n 20 "$file" >&2
  stop >/dev/null
  die "$what not ready after ${WAIT} s (log: $file)"
}

start() {
  local workers=2 cores=1 memory=2g
  while [ $# -gt 0 ]; do
    case $1 in
      --workers) workers=${2:?}; shift 2 ;;
      --cores) cores=${2:?}; shift 2 ;;
      --memory) memory=${2:?}; shift 2 ;;
      *) die "unknown option $1 (start [--workers N] [--cores C] [--memory SIZE])" ;;
    esac
  done
  [[ $workers =~ ^[1-9][0-9]*$ && $cores =~ ^[1-9][0-9]*$ ]] || die "--workers and --cores must be positive integers"
  if [ -n "$(daemons)" ]; then
    status >/dev/null && { cat "$DIR/master.url"; return 0; }
    die "a cluster recorded in $DIR is partly down: run stop first"
  fi
  command -v java >/dev/null || [ -n "${JAVA_HOME:-}" ] || die "Java not found (Spark needs Java 17)"
  local spark_home
  spark_home=$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))' 2>/dev/null) \
    || die "pyspark is not installed for $PY (run scripts/bootstrap.sh)"
  mkdir -p "$DIR/local"
  export SPARK_HOME=$spark_home SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_DIRS=$DIR/local SPARK_NO_DAEMONIZE=1
  # The master and the workers only schedule: the client compiler and the serial collector
  # start them faster and use less CPU (the executors they launch keep Spark's defaults).
  export SPARK_DAEMON_JAVA_OPTS="${SPARK_DAEMON_JAVA_OPTS:-} -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
  export SPARK_DAEMON_MEMORY=${SPARK_DAEMON_MEMORY:-256m}
  local port url i
  port=$(free_port)
  url=spark://127.0.0.1:$port
  "$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master \
    --host 127.0.0.1 --port "$port" --webui-port 0 > "$DIR/master.log" 2>&1 < /dev/null &
  echo $! > "$DIR/master.pid"
  wait_for "$DIR/master.log" "I have been elected leader" "$!" "the master"
  for ((i = 1; i <= workers; i++)); do
    mkdir -p "$DIR/worker-$i"
    "$spark_home/bin/spark-class" org.apache.spark.deploy.worker.Worker \
      --host 127.0.0.1 --cores "$cores" --memory "$memory" --webui-port 0 \
      --work-dir "$DIR/worker-$i" "$url" > "$DIR/worker-$i.log" 2>&1 < /dev/null &
    echo $! > "$DIR/worker-$i.pid"
  done
  for ((i = 1; i <= workers; i++)); do
    wait_for "$DIR/worker-$i.log" "Successfully registered with master" "$(cat "$DIR/worker-$i.pid")" "worker $i"
  done
  echo "$url" > "$DIR/master.url"
  echo "$url"
}

status() {
  local ok=0 name pid cls
  [ -n "$(daemons)" ] || { echo "no cluster recorded in $DIR"; return 1; }
  while read -r name pid cls; do
    if alive "$pid" "$cls"; then echo "$name pid $pid running"; else echo "$name pid $pid not running"; ok=1; fi
  done < <(daemons)
  [ -f "$DIR/master.url" ] && echo "master $(cat "$DIR/master.url")"
  return $ok
}

stop() {
  local name pid cls i
  while read -r name pid cls; do
    if alive "$pid" "$cls"; then
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do alive "$pid" "$cls" || break; sleep 0.2; done
      alive "$pid" "$cls" && kill -KILL "$pid" 2>/dev/null || true
      echo "stopped $name (pid $pid)"
    fi
    rm -f "$DIR/$name.pid"
  done < <(daemons)
  rm -f "$DIR/master.url"
}

case ${1:-} in
  start) shift; start "$@" ;;
  status) status ;;
  stop) stop ;;
  *) echo "usage: $0 start [--workers N] [--cores C] [--memory SIZE] | status | stop" >&2; exit 2 ;;
esac
