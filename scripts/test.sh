#!/usr/bin/env bash
# The whole test suite: install, build (type-check), lint, start the services the integration
# tests need, run every test, and print one closing line "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM=scripts/pnpm.sh

echo "== install"
$PNPM install --frozen-lockfile
# The REPL tests (test/repl) drive the shell through a real terminal: tmux.
command -v tmux >/dev/null || (apt-get update && apt-get install -y tmux)
# The job page test (test/integration/job-page.test.ts) drives headless Chromium: Debian's package.
command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
echo "== build and type-check"
$PNPM exec tsc -b
$PNPM exec tsc -p tsconfig.tests.json
echo "== lint"
$PNPM exec biome check .

cleanup() { :; }
trap 'cleanup' EXIT
if [[ -x scripts/kafka.sh ]]; then
  # Starts a real single-node broker unless KAFKA_BROKERS names one already.
  if [[ -z "${KAFKA_BROKERS:-}" ]]; then
    echo "== starting Kafka"
    export KAFKA_BROKERS
    KAFKA_BROKERS=$(scripts/kafka.sh start)
    cleanup() { scripts/kafka.sh stop || true; }
  fi
fi

echo "== tests"
mkdir -p .cache
set +e
$PNPM exec vitest run --reporter=default --reporter=json --outputFile.json=.cache/vitest.json "$@"
rc=$?
set -e
node -e '
  const r = JSON.parse(require("fs").readFileSync(".cache/vitest.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests + r.numTodoTests ? `, ${r.numPendingTests + r.numTodoTests} skipped` : ""));
' || true
exit $rc
