#!/usr/bin/env bash
# Regenerates test/oracle/*.expected.tsv with Flink 2.3 (Java 17 and Maven, dependencies
# from Maven Central): every expression of test/oracle/expressions.sql (session time zone UTC)
# and of test/oracle/expressions_new_york.sql (America/New_York) and
# test/oracle/expressions_timestamp_precision.sql (UTC, and its _new_york twin) evaluated on a local
# MiniCluster at parallelism 1, and the changelog of every query script of test/oracle/queries
# (`regenerate.sh queries [NAME...]` runs only those). The suite itself needs no Java: test/oracle.test.ts compares Weir
# with the checked-in file. Takes a few minutes (one job per chunk of expressions).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
# A forked JVM (not exec:java): Flink's MiniCluster loads the job's classes from the application
# class path.
oracle() {
  local main="$1"
  shift
  java \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED \
    --add-opens=java.base/java.time=ALL-UNNAMED \
    --add-opens=java.base/java.math=ALL-UNNAMED \
    -cp "target/classes:$(cat target/classpath.txt)" \
    "$main" "$@"
}
if [ "${1:-}" = "queries" ]; then
  # Only the query scripts (all, or the names given): test/oracle/queries/NAME.expected.tsv.
  shift
  oracle weir.oracle.ScriptOracle "$root/test/oracle/queries" "$@"
  exit 0
fi
oracle weir.oracle.ExpressionOracle "$root/test/oracle/expressions.sql" "$root/test/oracle/expressions.expected.tsv" UTC
echo "wrote test/oracle/expressions.expected.tsv"
oracle weir.oracle.ExpressionOracle "$root/test/oracle/expressions_new_york.sql" "$root/test/oracle/expressions_new_york.expected.tsv" America/New_York
echo "wrote test/oracle/expressions_new_york.expected.tsv"
oracle weir.oracle.ExpressionOracle "$root/test/oracle/expressions_timestamp_precision.sql" "$root/test/oracle/expressions_timestamp_precision.expected.tsv" UTC
echo "wrote test/oracle/expressions_timestamp_precision.expected.tsv"
oracle weir.oracle.ExpressionOracle "$root/test/oracle/expressions_timestamp_precision_new_york.sql" "$root/test/oracle/expressions_timestamp_precision_new_york.expected.tsv" America/New_York
echo "wrote test/oracle/expressions_timestamp_precision_new_york.expected.tsv"
oracle weir.oracle.ScriptOracle "$root/test/oracle/queries"
echo "wrote test/oracle/queries/*.expected.tsv"
