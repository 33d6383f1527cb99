#!/usr/bin/env bash
# Install scripts/commit-msg into this clone's hooks folder (`git rev-parse --git-path
# hooks`: the shared one of every worktree, or core.hooksPath). A different commit-msg hook
# already there is left alone, with a note on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || exit 0      # not a git clone (e.g. an sdist)
hooks=$(git rev-parse --path-format=absolute --git-path hooks)
mkdir -p "$hooks"
target=$hooks/commit-msg
if [ -e "$target" ] && ! cmp -s scripts/commit-msg "$target" \
   && ! grep -q '^# fisheye commit-msg hook' "$target"; then
  echo "install-hooks: $target is another hook; left as it is" >&2
  exit 0
fi
cp scripts/commit-msg "$target"
chmod +x "$target"
