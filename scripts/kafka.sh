#!/usr/bin/env bash
# A real single-node Apache Kafka broker (KRaft, combined broker+controller) for the test suite.
#
#   scripts/kafka.sh start          start a broker; prints ONLY its bootstrap address on stdout
#   scripts/kafka.sh stop [ADDR]    stop the broker at ADDR (default: $KAFKA_BROKERS if set, else
#                                   every broker started from this tree) and delete its data
#   scripts/kafka.sh status         list the brokers started from this tree
#
# Kafka's jars come from Maven Central through mvn, into a cache that outlives the run:
#   ${WEIR_CACHE_DIR:-$HOME/.cache/weir}/kafka-<version>/libs
# Each broker runs in its own directory under ${WEIR_KAFKA_RUN_DIR:-<repo>/.cache/kafka-run}
# (broker-<port>/: pid, address, config, data, logs). Every log goes to stderr or to files.
# Environment: WEIR_KAFKA_VERSION (3.9.x; default 3.9.1), WEIR_KAFKA_PORT (default: a free port),
# WEIR_KAFKA_START_TIMEOUT (seconds, default 90), WEIR_KAFKA_JVM_OPTS (extra JVM flags).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
version=${WEIR_KAFKA_VERSION:-3.9.1}
cache_dir=${WEIR_CACHE_DIR:-$HOME/.cache/weir}/kafka-$version
libs=$cache_dir/libs
run_root=${WEIR_KAFKA_RUN_DIR:-$repo/.cache/kafka-run}
start_timeout=${WEIR_KAFKA_START_TIMEOUT:-90}

log() { echo "kafka.sh: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# Kafka 3.9 logs through slf4j 1.7 + reload4j (log4j 1 config below); 4.0.0 dropped the JoinGroup
# versions kafkajs speaks, and 4.x logs through log4j2, which this script does not configure.
case $version in
  3.9.*) ;;
  *) die "unsupported Kafka version $version: use 3.9.x (WEIR_KAFKA_VERSION)" ;;
esac

# Downloads the broker's runtime classpath once; the stamp marks a finished download, so an
# interrupted one is redone from scratch. A lock keeps concurrent cold starts from colliding.
ensure_libs() {
  [[ -f $cache_dir/.complete ]] && return 0
  command -v mvn >/dev/null || die "mvn not found: it is needed once to fetch Kafka's jars into $libs"
  mkdir -p "$cache_dir"
  exec 9>"$cache_dir/.lock"
  flock 9
  if [[ ! -f $cache_dir/.complete ]]; then
    log "fetching Kafka $version jars from Maven Central into $libs"
    rm -rf "$libs" "$cache_dir/pom.xml"
    cat >"$cache_dir/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>weir.test</groupId>
  <artifactId>kafka-broker-libs</artifactId>
  <version>$version</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId><version>1.2.25</version></dependency>
  </dependencies>
</project>
EOF
    # Debian's Maven 3.8 writes colour resets even with -q -B; they are stripped.
    mvn -B -q -Dstyle.color=never -f "$cache_dir/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$libs" 2>&1 | sed 's/\x1b\[[0-9;]*m//g; /^$/d' >&2 ||
      die "mvn could not fetch Kafka $version (see above)"
    [[ -f $libs/kafka_2.13-$version.jar ]] || die "mvn finished but $libs has no kafka_2.13-$version.jar"
    touch "$cache_dir/.complete"
  fi
  flock -u 9
  exec 9>&-
}

# Prints two distinct free TCP ports on 127.0.0.1 (both held open while chosen).
free_ports() {
  node -e '
    const net = require("node:net");
    const a = net.createServer(), b = net.createServer();
    a.listen(0, "127.0.0.1", () => b.listen(0, "127.0.0.1", () => {
      console.log(a.address().port, b.address().port);
      a.close(); b.close();
    }));'
}

# A KRaft cluster id: 16 random bytes, base64url without padding, not starting with "-"
# (which the tool's argument parser would take for an option).
cluster_id() {
  node -e '
    const { randomBytes } = require("node:crypto");
    let id;
    do id = randomBytes(16).toString("base64url"); while (id.startsWith("-"));
    console.log(id);'
}

# True while PID is a live (not zombie) broker JVM started for run directory DIR.
broker_alive() {
  local pid=$1 dir=$2 state
  [[ -r /proc/$pid/stat ]] || return 1
  state=$(sed 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f1)
  [[ $state != Z ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$dir/server.properties"
}

show_log_tail() {
  local dir=$1 f
  for f in "$dir/stdout.log" "$dir/logs/server.log"; do
    [[ -s $f ]] || continue
    log "---- last lines of $f"
    tail -n 40 "$f" >&2
  done
}

# Stops the broker of run directory DIR (its whole process group), waits for it to exit, keeps
# its server log as $run_root/last-broker.log and deletes the directory.
stop_run() {
  local dir=$1 pid waited=0
  pid=$(cat "$dir/pid" 2>/dev/null || true)
  if [[ -n $pid ]] && broker_alive "$pid" "$dir"; then
    log "stopping broker $(cat "$dir/address" 2>/dev/null) (pid $pid)"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    while broker_alive "$pid" "$dir"; do
      if ((waited == 300)); then
        log "broker pid $pid did not exit after 30 s; killing it"
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      fi
      if ((waited > 400)); then
        die "broker pid $pid is still alive; $dir kept"
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
  fi
  [[ -f $dir/logs/server.log ]] && cp "$dir/logs/server.log" "$run_root/last-broker.log" 2>/dev/null
  rm -rf "$dir"
}

cmd_start() {
  command -v java >/dev/null || die "java not found: the broker needs a JDK/JRE 11+"
  ensure_libs
  mkdir -p "$run_root"

  local port ctrl_port dir
  read -r port ctrl_port < <(free_ports)
  [[ -n ${WEIR_KAFKA_PORT:-} ]] && port=$WEIR_KAFKA_PORT
  dir=$run_root/broker-$port
  if [[ -d $dir ]]; then
    local old
    old=$(cat "$dir/pid" 2>/dev/null || true)
    if [[ -n $old ]] && broker_alive "$old" "$dir"; then
      die "a broker from this tree already runs at 127.0.0.1:$port (pid $old)"
    fi
    rm -rf "$dir"
  fi
  mkdir -p "$dir/data" "$dir/logs"

  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$ctrl_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$ctrl_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=24
EOF
  cat >"$dir/log4j.properties" <<EOF
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$dir/logs/server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.org.apache.kafka.common.utils.AppInfoParser=WARN
log4j.logger.kafka.server.KafkaConfig=WARN
log4j.logger.org.apache.kafka.common.config.AbstractConfig=WARN
EOF

  local -a jvm=(-Djava.awt.headless=true -XX:-UsePerfData -XX:+ExitOnOutOfMemoryError
    "-Dlog4j.configuration=file:$dir/log4j.properties" "-Dkafka.logs.dir=$dir/logs")
  local -a extra=()
  [[ -n ${WEIR_KAFKA_JVM_OPTS:-} ]] && read -r -a extra <<<"$WEIR_KAFKA_JVM_OPTS"

  java -Xmx256m "${jvm[@]}" -cp "$libs/*" kafka.tools.StorageTool format \
    -t "$(cluster_id)" -c "$dir/server.properties" >"$dir/format.log" 2>&1 || {
    cat "$dir/format.log" >&2
    rm -rf "$dir"
    die "formatting the broker's storage failed"
  }

  # setsid makes the JVM the leader of its own process group (so stop can signal the group) and
  # detaches it from this script's terminal and from the caller's stdout.
  setsid nohup java -Xmx512m -Xms256m "${jvm[@]}" "${extra[@]}" -cp "$libs/*" \
    kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$dir/pid"
  echo "127.0.0.1:$port" >"$dir/address"

  local deadline=$((SECONDS + start_timeout))
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null &&
    node "$repo/scripts/kafka/ready.mjs" "127.0.0.1:$port" 2>>"$dir/ready.log"; do
    if ! broker_alive "$pid" "$dir"; then
      show_log_tail "$dir"
      stop_run "$dir"
      die "the broker exited during startup"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 5 "$dir/ready.log" >&2 2>/dev/null || true
      show_log_tail "$dir"
      stop_run "$dir"
      die "the broker did not answer within ${start_timeout} s"
    fi
    sleep 0.5
  done
  log "broker up at 127.0.0.1:$port (pid $pid, dir $dir)"
  echo "127.0.0.1:$port"
}

# Run directories to stop: those whose address is $1 when given; else all of them.
runs_matching() {
  local want=${1:-} dir
  for dir in "$run_root"/broker-*; do
    [[ -d $dir ]] || continue
    if [[ -z $want || $(cat "$dir/address" 2>/dev/null) == "$want" ]]; then
      echo "$dir"
    fi
  done
}

cmd_stop() {
  local want=${1:-${KAFKA_BROKERS:-}} dir found=0
  [[ $want == --all ]] && want=
  while IFS= read -r dir; do
    found=1
    stop_run "$dir"
  done < <(runs_matching "$want")
  ((found)) || log "no broker started from this tree${want:+ at $want}; nothing to stop"
}

cmd_status() {
  local dir pid any=0
  while IFS= read -r dir; do
    any=1
    pid=$(cat "$dir/pid" 2>/dev/null || true)
    if [[ -n $pid ]] && broker_alive "$pid" "$dir"; then
      echo "$(cat "$dir/address") running (pid $pid, dir $dir)"
    else
      echo "$(cat "$dir/address" 2>/dev/null || basename "$dir") not running (stale dir $dir)"
    fi
  done < <(runs_matching "")
  ((any)) || echo "no broker started from this tree"
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop "${2:-}" ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|stop [ADDR|--all]|status" >&2
    exit 2
    ;;
esac
