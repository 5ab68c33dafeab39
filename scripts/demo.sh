#!/usr/bin/env bash
# The demo on embedded defaults: installs and builds what it needs, generates an order-paid
# stream (with duplicates, out-of-order and late events), runs the revenue-per-minute pipeline
# into a materialised view kept in an embedded Postgres, and prints the view's rows.
#
# In a terminal (or with WEIR_DEMO_WAIT=1) the embedded Postgres keeps serving the view after
# the run until you press Enter (or Ctrl-C), so the psql command it prints works meanwhile.
# Otherwise the run ends with the job, and the demo prints the command that serves the view.
# WEIR_DEMO_PG_PORT picks the port (default 54329; 0: a free one). WEIR_DEMO_NO_BUILD=1 skips
# the install and build (the tests, which have built already).
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=scripts/pnpm.sh
PORT=${WEIR_DEMO_PG_PORT:-54329}
QUERY="SELECT * FROM revenue_minute ORDER BY window_start, store_id"
if [ "${WEIR_DEMO_NO_BUILD:-}" != 1 ]; then
  echo "== installing and building (first run only takes a while)"
  $PNPM install --frozen-lockfile >/dev/null
  $PNPM exec tsc -b
fi
mkdir -p out/demo
node scripts/demo/generate-orders.mjs 400 42 > out/demo/orders.jsonl
echo "== generated $(wc -l < out/demo/orders.jsonl) order events into out/demo/orders.jsonl"
echo "== weir run scripts/demo/revenue_mv.sql"

if [ -t 0 ] || [ "${WEIR_DEMO_WAIT:-}" = 1 ]; then
  # Serve the view after the run; weir's standard error is copied to a file to learn when the
  # job has ended (and the port, when a free one was picked).
  err=out/demo/weir.err
  : > "$err"
  bin/weir run scripts/demo/revenue_mv.sql --serve --set "weir.mv.port=$PORT" 2> >(tee "$err" >&2) &
  weir=$!
  stop() {
    kill -INT "$weir" 2>/dev/null || true
    wait "$weir" || true
  }
  trap 'echo; echo "== stopping"; stop; exit 0' INT TERM
  until grep -q "still serving" "$err"; do
    if ! kill -0 "$weir" 2>/dev/null; then
      wait "$weir" && code=0 || code=$?
      echo "== weir run ended without serving the view (exit $code)" >&2
      exit "${code/#0/1}"
    fi
    sleep 0.2
  done
  served=$(grep -o -- "-p [0-9]*" "$err" | tail -1 | cut -d' ' -f2)
  cat <<MSG

The view is served by the embedded Postgres until you press Enter (or Ctrl-C). From another
terminal:

  psql -h 127.0.0.1 -p $served -U postgres -c '$QUERY'

MSG
  read -r _ || true
  echo "== stopping"
  stop
  echo "Next: docs/getting-started.md, and the examples in sql/."
else
  bin/weir run scripts/demo/revenue_mv.sql
  cat <<MSG

The view lived in an embedded Postgres for the length of the run, which has ended. To query it
with psql, keep it serving and connect from another terminal:

  bin/weir run scripts/demo/revenue_mv.sql --serve --set weir.mv.port=$PORT
  psql -h 127.0.0.1 -p $PORT -U postgres -c '$QUERY'

Next: docs/getting-started.md, and the examples in sql/.
MSG
fi
