#!/usr/bin/env bash
# The headless browser the HTML report's test renders in (Debian's chromium).  Installs it
# with apt-get when it is missing; does nothing when it is present.  Needs root (or sudo).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "installing chromium (the HTML report's test renders in it)" >&2
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
