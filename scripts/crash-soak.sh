#!/usr/bin/env bash
# The exactly-once soak: test/integration/exactly-once-crash.test.ts with 100 SIGKILLs (and a
# topic large enough that the job is still running after them). Needs KAFKA_BROKERS (a running
# broker, e.g. from scripts/kafka.sh start) and the Postgres of docs/testing.md. Usage:
#   KAFKA_BROKERS=127.0.0.1:9092 scripts/crash-soak.sh [KILLS] [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${KAFKA_BROKERS:?set KAFKA_BROKERS to a running broker (scripts/kafka.sh start prints one)}"
export WEIR_CRASH_KILLS="${1:-100}"
export WEIR_CRASH_EVENTS="${2:-400000}"
scripts/pnpm.sh exec tsc -b
exec scripts/pnpm.sh exec vitest run test/integration/exactly-once-crash.test.ts
