#!/usr/bin/env bash
# Regenerates test/oracle/*.expected.tsv with Flink 2.3 (Java 17 and Maven, dependencies
# from Maven Central): every expression of test/oracle/expressions.sql (session time zone UTC)
# and of test/oracle/expressions_new_york.sql (America/New_York) evaluated on a local
# MiniCluster at parallelism 1. The suite itself needs no Java: test/oracle.test.ts compares Weir
# with the checked-in file. Takes a few minutes (one job per chunk of expressions).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
# A forked JVM (not exec:java): Flink's MiniCluster loads the job's classes from the application
# class path.
oracle() {
  java \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED \
    --add-opens=java.base/java.time=ALL-UNNAMED \
    --add-opens=java.base/java.math=ALL-UNNAMED \
    -cp "target/classes:$(cat target/classpath.txt)" \
    weir.oracle.ExpressionOracle "$@"
}
oracle "$root/test/oracle/expressions.sql" "$root/test/oracle/expressions.expected.tsv" UTC
echo "wrote test/oracle/expressions.expected.tsv"
oracle "$root/test/oracle/expressions_new_york.sql" "$root/test/oracle/expressions_new_york.expected.tsv" America/New_York
echo "wrote test/oracle/expressions_new_york.expected.tsv"
