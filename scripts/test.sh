#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, lint, then every test (slow and Spark ones
# included: nothing is skipped; chromium is installed for the HTML report's test), on both cores.
# It also installs the commit-msg hook (scripts/commit-msg) into the clone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/install-chromium.sh
bash scripts/install-hooks.sh
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -n 2 --dist loadfile -p no:cacheprovider "$@"
