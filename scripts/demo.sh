#!/usr/bin/env bash
# The demo on embedded defaults: installs and builds what it needs, generates an order-paid
# stream (with duplicates, out-of-order and late events), runs the revenue-per-minute pipeline
# into a materialised view kept in an embedded Postgres, and prints the view's rows.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=scripts/pnpm.sh
echo "== installing and building (first run only takes a while)"
$PNPM install --frozen-lockfile >/dev/null
$PNPM exec tsc -b
mkdir -p out/demo
node scripts/demo/generate-orders.mjs 400 42 > out/demo/orders.jsonl
echo "== generated $(wc -l < out/demo/orders.jsonl) order events into out/demo/orders.jsonl"
echo "== weir run scripts/demo/revenue_mv.sql"
bin/weir run scripts/demo/revenue_mv.sql
cat <<'MSG'

The view lived in an embedded Postgres for the length of the run. To query it with psql, keep it
serving and connect from another terminal:

  bin/weir run scripts/demo/revenue_mv.sql --serve --set weir.mv.port=54329
  psql -h 127.0.0.1 -p 54329 -U postgres -c 'SELECT * FROM revenue_minute ORDER BY window_start, store_id'

Next: docs/getting-started.md, and the examples in sql/.
MSG
