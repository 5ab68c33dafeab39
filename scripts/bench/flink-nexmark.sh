#!/usr/bin/env bash
# Weir beside a warm Flink 2.3 on the same Nexmark events file, parallelism 1, events per CPU-second:
#   scripts/bench/flink-nexmark.sh [--steady LARGER.json] [--reps N] EVENTS.json [q0 q1 ... | all]
# Write the files once with Weir's generator: bin/weir bench nexmark --write-file EVENTS.json --events 2M
#
# Per query, per repetition, Weir then Flink (interleaved, so that both see the same machine load):
# - Weir: `weir bench nexmark --from-file EVENTS.json --query qN` (a warm-up run over the file, then
#   the measured run; process CPU time, user + sys).
# - Flink: scripts/flink-oracle's Maven project (Java 17, Flink 2.3 from Maven Central);
#   NexmarkFileBench runs the same sql/nexmark/qN.sql with only datagen's WITH clause swapped for
#   filesystem/json on a local MiniCluster, the INSERT twice in one JVM, the second measured (the
#   JVM's process CPU time over the run).
# With --steady LARGER.json, each engine goes on in the same process with one more run over the larger
# file, and the script adds the cost per event at steady state: (cpu(larger) - cpu(EVENTS)) /
# (events(larger) - events(EVENTS)) — the per-job cost (start-up, planning, code generation, the
# first events' JIT) cancels. Both engines get large heaps (WEIR_HEAP_MB, default 8192, for node's
# --max-old-space-size, added to bin/weir's node flags and WEIR_NODE_OPTIONS; FLINK_XMX, default
# 4g, for the JVM's -Xmx).
# With --reps N (default 1) each figure is the median of N interleaved repetitions.
# Sinks: blackhole in both engines, except q10's filesystem sink, which writes its JSON files into a
# temporary directory (removed after each run) in both; q12 runs on processing time (its outputs
# depend on the clock: counted by Weir, not compared); q13's side input is a CSV file, generated
# here when missing (Flink reads it with the project's weir-side-input lookup source).
# Peak RSS: Weir's sampled peak of the measured run(s); Flink's the JVM's maximum resident set
# (/usr/bin/time, the whole JVM).
# Not part of the test suite: nothing in the tests needs Java or Flink.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
usage="usage: $0 [--steady LARGER.json] [--reps N] EVENTS.json [q0 q1 ... | all]"
steady=""
reps=1
while [ $# -gt 0 ]; do
  case "$1" in
    --steady) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; steady="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --reps) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; reps="$2"; shift 2 ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
events_file="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
queries=("$@")
if [ ${#queries[@]} -eq 0 ] || [ "${queries[0]}" = all ]; then
  queries=(q0 q1 q2 q3 q4 q5 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22)
fi
(cd "$root/scripts/flink-oracle" && mvn -q -B -Dstyle.color=never compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt)
cp="$root/scripts/flink-oracle/target/classes:$(cat "$root/scripts/flink-oracle/target/classpath.txt")"
side="$root/sql/nexmark/data/side_input.csv"
if [ ! -f "$side" ]; then
  mkdir -p "$(dirname "$side")"
  node -e 'for(let k=0;k<1e4;k++)console.log(`${k},side-${String(k).padStart(4,"0")}`)' > "$side"
fi
n=$(wc -l < "$events_file")
n2=0
[ -z "$steady" ] || n2=$(wc -l < "$steady")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
weir_heap="${WEIR_HEAP_MB:-8192}"
flink_xmx="${FLINK_XMX:-4g}"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $n events$([ -z "$steady" ] || echo ", steady state $n -> $n2"), $reps rep(s), node $(node --version), $(java -version 2>&1 | head -1)"
if [ -z "$steady" ]; then
  printf '%-6s %14s %14s %10s %12s %12s\n' query "weir ev/s/core" "flink (warm)" weir/flink "weir RSS" "flink RSS"
else
  printf '%-6s %14s %14s %10s | %15s %15s %10s | %12s %12s\n' query "weir ev/s/core" "flink (warm)" weir/flink \
    "weir steady" "flink steady" weir/flink "weir RSS" "flink RSS"
fi
median='const xs=process.argv.slice(1).map(Number).sort((a,b)=>a-b);const m=xs.length>>1;console.log(xs.length%2?xs[m]:(xs[m-1]+xs[m])/2)'
for q in "${queries[@]}"; do
  : > "$tmp/reps"
  failed=""
  for ((rep = 1; rep <= reps; rep++)); do
    args=(bench nexmark --from-file "$events_file" --query "$q" --json)
    [ -z "$steady" ] || args+=(--steady-file "$steady")
    if ! (cd "$root" && WEIR_NODE_OPTIONS="--max-old-space-size=$weir_heap ${WEIR_NODE_OPTIONS:-}" packages/cli/bin/weir "${args[@]}" > "$tmp/weir.json"); then
      failed="weir failed"
      break
    fi
    # weir: cpu(N), cpu(larger) or 0, peak RSS MiB (the larger run's when steady)
    read -r wcpu wcpu2 wrss < <(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).results[0];const s=r.steady;console.log(r.cpuSeconds, s?s.toCpuSeconds:0, Math.round(Math.max(r.peakRssBytes,s?s.toPeakRssBytes:0)/2**20))' "$tmp/weir.json")
    fargs=("sql/nexmark/$q.sql" "$events_file" 2)
    [ -z "$steady" ] || fargs+=("$steady")
    if ! (cd "$root" && /usr/bin/time -f '%M' -o "$tmp/flink.rss" java -Xmx"$flink_xmx" \
      --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
      --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.math=ALL-UNNAMED \
      -cp "$cp" weir.bench.NexmarkFileBench "${fargs[@]}" > "$tmp/flink.txt"); then
      # One query Flink cannot run (its error is on stderr above) does not stop the others.
      failed="flink failed"
      echo "$wcpu $wcpu2 $wrss" > "$tmp/weir-only"
      break
    fi
    fcpu=$(grep '^run 2:' "$tmp/flink.txt" | sed -E 's/.*cpu ([0-9.]+) s.*/\1/')
    fcpu2=0
    [ -z "$steady" ] || fcpu2=$(grep '^run 3:' "$tmp/flink.txt" | sed -E 's/.*cpu ([0-9.]+) s.*/\1/')
    frss=$(( $(cat "$tmp/flink.rss") / 1024 ))
    echo "$wcpu $wcpu2 $wrss $fcpu $fcpu2 $frss" >> "$tmp/reps"
  done
  if [ -n "$failed" ]; then
    w="-"
    [ ! -f "$tmp/weir-only" ] || w=$(node -e 'console.log(Math.round(Number(process.argv[1])/Number(process.argv[2])))' "$n" "$(cut -d' ' -f1 "$tmp/weir-only")")
    rm -f "$tmp/weir-only"
    printf '%-6s %14s %14s\n' "$q" "$w" "$failed"
    continue
  fi
  col() { node -e "$median" $(cut -d' ' -f"$1" "$tmp/reps"); }
  wcpu=$(col 1) wcpu2=$(col 2) wrss=$(col 3) fcpu=$(col 4) fcpu2=$(col 5) frss=$(col 6)
  node -e '
    const [q, n, n2, wcpu, wcpu2, wrss, fcpu, fcpu2, frss] = process.argv.slice(1);
    const k = (x) => Math.round(x).toString();
    const w = n / wcpu, f = n / fcpu;
    let line = `${q.padEnd(6)} ${k(w).padStart(14)} ${k(f).padStart(14)} ${(w / f).toFixed(2).padStart(10)}`;
    if (Number(n2) > 0) {
      const ws = (n2 - n) / (wcpu2 - wcpu), fs = (n2 - n) / (fcpu2 - fcpu);
      line += ` | ${k(ws).padStart(15)} ${k(fs).padStart(15)} ${(ws / fs).toFixed(2).padStart(10)} |`;
    }
    console.log(`${line} ${wrss.padStart(8)} MiB ${frss.padStart(8)} MiB`);
  ' "$q" "$n" "$n2" "$wcpu" "$wcpu2" "$wrss" "$fcpu" "$fcpu2" "$frss"
done
echo "# done $(date -u '+%H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
