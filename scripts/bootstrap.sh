#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment in .venv and install fisheye into it,
# editable, with the extras for tests, lint and Spark.  Idempotent and quiet when up to date:
# it reinstalls only when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "fisheye needs Python 3.11 or newer ($PY is $("$PY" --version 2>&1))" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "setting up .venv (first run: installs z3-solver, pyspark, ... once)" >&2
  "$PY" -m venv .venv
fi
stamp=.venv/.fisheye-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dev]" >&2
  echo "$want" > "$stamp"
fi
# fisheye's own modules byte-compiled (an editable install leaves that to the first run of
# each module, and a shell with PYTHONDONTWRITEBYTECODE set would compile them again at
# every command: about 40 ms of a small check); quiet, and quick when up to date
.venv/bin/python -m compileall -q spec impl checker fisheye_ns
# the compiled kernels of the checker, into numba's on-disk cache (the first check of a
# large history would otherwise compile them: several seconds of CPU), and the lin kernel
# compiled ahead of time (a lin check then imports no numba); quiet when up to date
.venv/bin/python -c 'from fisheye.checker.engines.warm_up import warm_up; warm_up()'
# the classes a Spark driver loads, archived once (the JDK's class data sharing): every
# later Spark session starts in about 1.7 s instead of 3.8; nothing is lost without it
.venv/bin/python -c 'from fisheye.checker.spark.session import write_class_archive; write_class_archive()' \
  >/dev/null 2>&1 || echo "note: no Spark class archive written (Spark sessions start without it)" >&2
# the explorer's compiled kernel (the protocol level), likewise: a tiny exploration
# compiles it once (about 20 s of CPU) for every later run
.venv/bin/fisheye explore paris-berlin-newyork --max-states 10 --model none --quiet --kernel compiled >/dev/null \
  || [ $? -eq 3 ]
