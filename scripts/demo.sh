#!/usr/bin/env bash
# The demo on embedded defaults: installs and builds what it needs, then runs the demo script.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=scripts/pnpm.sh
$PNPM install --frozen-lockfile >/dev/null
$PNPM exec tsc -b
echo "== weir parse sql/revenue_minute.sql"
bin/weir parse sql/revenue_minute.sql
