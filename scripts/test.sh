#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, lint, then every test (slow and Spark ones
# included: nothing is skipped), on both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -n 2 --dist loadfile -p no:cacheprovider "$@"
