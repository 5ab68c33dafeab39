#!/usr/bin/env bash
# Weir beside a warm Flink 2.3 on the same Nexmark events file, parallelism 1, events per CPU-second:
#   scripts/bench/flink-nexmark.sh EVENTS.json [q0 q1 ... | all]
# Write the file once with Weir's generator: bin/weir bench nexmark --write-file EVENTS.json --events 2M
# Weir: `weir bench nexmark --from-file EVENTS.json --query qN` (a warm-up run over the file, then the
# measured run). Flink: scripts/flink-oracle's Maven project (Java 17, Flink 2.3 from Maven Central),
# NexmarkFileBench runs the same sql/nexmark/qN.sql with only datagen's WITH clause swapped for
# filesystem/json on a local MiniCluster, the INSERT twice in one JVM, the second measured (process
# CPU time). Peak RSS: Weir's sampled peak; Flink's the JVM's maximum resident set (/usr/bin/time).
# Not part of the test suite: nothing in the tests needs Java or Flink.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 EVENTS.json [q0 q1 ... | all]" >&2; exit 2; }
events_file="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
queries=("$@")
if [ ${#queries[@]} -eq 0 ] || [ "${queries[0]}" = all ]; then
  queries=(q0 q1 q2 q3 q4 q5 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22)
fi
(cd "$root/scripts/flink-oracle" && mvn -q -B -Dstyle.color=never compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt)
cp="$root/scripts/flink-oracle/target/classes:$(cat "$root/scripts/flink-oracle/target/classpath.txt")"
n=$(wc -l < "$events_file")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-6s %14s %14s %10s %12s %12s\n' query "weir ev/s/core" "flink (warm)" weir/flink "weir RSS" "flink RSS"
for q in "${queries[@]}"; do
  node "$root/packages/cli/dist/main.js" bench nexmark --from-file "$events_file" --query "$q" --json > "$tmp/weir.json"
  weir=$(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).results[0];console.log(Math.round(r.eventsPerSecondPerCore), Math.round(r.peakRssBytes/2**20))' "$tmp/weir.json")
  if ! (cd "$root/sql/nexmark" && /usr/bin/time -f '%M' -o "$tmp/flink.rss" java -Xmx4g \
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
    --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.math=ALL-UNNAMED \
    -cp "$cp" weir.bench.NexmarkFileBench "$q.sql" "$events_file" 2 > "$tmp/flink.txt"); then
    # One query Flink cannot run (its error is on stderr above) does not stop the others.
    printf '%-6s %14s %14s\n' "$q" "${weir%% *}" "flink failed"
    continue
  fi
  cpu=$(tail -1 "$tmp/flink.txt" | sed -E 's/.*cpu ([0-9.]+) s.*/\1/')
  flink=$(node -e 'console.log(Math.round(Number(process.argv[1]) / Number(process.argv[2])))' "$n" "$cpu")
  frss=$(( $(cat "$tmp/flink.rss") / 1024 ))
  set -- $weir
  printf '%-6s %14s %14s %10s %9s MiB %8s MiB\n' "$q" "$1" "$flink" \
    "$(node -e 'console.log((Number(process.argv[1])/Number(process.argv[2])).toFixed(2))' "$1" "$flink")" "$2" "$frss"
done
