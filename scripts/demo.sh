#!/usr/bin/env bash
# The demo on embedded defaults: installs and builds what it needs, then runs the seeds' revenue
# pipeline (sql/revenue_minute.sql) over the checked-in order events and prints its result.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=scripts/pnpm.sh
$PNPM install --frozen-lockfile >/dev/null
$PNPM exec tsc -b
echo "== weir run sql/revenue_minute.sql"
bin/weir run sql/revenue_minute.sql
echo
echo "== out/revenue_minute.jsonl (revenue per store and currency per minute, KST)"
cat out/revenue_minute.jsonl
