#!/usr/bin/env bash
# Native (Docker-free) services for crawlstream's integration tests and Kafka mode, on loopback:
#   Kafka 4.4.0 (KRaft, broker+controller in one JVM; jars from Maven Central, scripts/services/kafka)
#   Apicurio Registry 3.0.9 (Confluent-compatible API under /apis/ccompat/v7; scripts/services/registry)
#   ClickHouse server from Debian's package (18.16.1 on bookworm; scripts/services/clickhouse)
# Everything they write (jars, data, logs, pid files) lives under .services/ (git-ignored).
#
# Usage: scripts/dev-services.sh up|down|env|status|clean|tools
#        scripts/dev-services.sh start-kafka|stop-kafka|restart-kafka
#        scripts/dev-services.sh start-registry|stop-registry|restart-registry
#        scripts/dev-services.sh start-clickhouse|stop-clickhouse|restart-clickhouse
# Ports (override by environment): KAFKA_PORT=19092 KAFKA_CONTROLLER_PORT=19093
#   SCHEMA_REGISTRY_PORT=18081 CLICKHOUSE_HTTP_PORT=18123 CLICKHOUSE_TCP_PORT=19000
# DEV_SERVICES_DIR moves .services elsewhere; DEV_SERVICES_TIMEOUT (s) bounds each startup wait.
# `tools` only installs the test tools (promtool, the Python venv at .services/venv); `up` does too.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONF="$ROOT/scripts/services"
SVC=$(realpath -m "${DEV_SERVICES_DIR:-$ROOT/.services}")
KAFKA_PORT=${KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-19093}
SCHEMA_REGISTRY_PORT=${SCHEMA_REGISTRY_PORT:-18081}
CLICKHOUSE_HTTP_PORT=${CLICKHOUSE_HTTP_PORT:-18123}
CLICKHOUSE_TCP_PORT=${CLICKHOUSE_TCP_PORT:-19000}
TIMEOUT=${DEV_SERVICES_TIMEOUT:-180}

say() { printf 'dev-services: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

for p in KAFKA_PORT KAFKA_CONTROLLER_PORT SCHEMA_REGISTRY_PORT CLICKHOUSE_HTTP_PORT CLICKHOUSE_TCP_PORT; do
  # Kubernetes injects e.g. KAFKA_PORT=tcp://10.0.0.1:9092 for a service named kafka.
  [[ ${!p} =~ ^[0-9]+$ ]] || die "$p must be a port number, got '${!p}'"
done

# ---------------------------------------------------------------- processes

pid_file() { echo "$SVC/run/$1.pid"; }

# A pid file only counts if its process is alive and was started from this .services dir: after a
# crash or reboot the number may belong to anything. Zombies have an empty cmdline, so they count as dead.
pid_of() {
  local f pid
  f=$(pid_file "$1")
  [[ -f $f ]] || return 1
  pid=$(<"$f")
  if [[ $pid =~ ^[0-9]+$ ]] && [[ $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") == *"$SVC/"* ]]; then
    echo "$pid"; return 0
  fi
  rm -f "$f"
  return 1
}

alive() { [[ -n $(tr -d '\0' 2>/dev/null <"/proc/$1/cmdline") ]]; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

require_free_port() { # name port
  if port_busy "$2"; then die "$1: port 127.0.0.1:$2 is taken by another process (override the port by env)"; fi
}

# Detached in its own session so it outlives this script and the caller's terminal. The child writes
# its own pid before exec, which stays right even if setsid has to fork. fd 9 (our lock) is closed
# so a long-lived service never holds it.
launch() { # name log cmd...
  local name=$1 log=$2 f i
  shift 2
  f=$(pid_file "$name")
  rm -f "$f"
  setsid -f sh -c 'echo $$ >"$0"; exec "$@"' "$f" "$@" >>"$log" 2>&1 </dev/null 9>&-
  for ((i = 0; i < 50; i++)); do [[ -s $f ]] && return 0; sleep 0.1; done
  die "$name: did not start (see $log)"
}

show_logs() { local log; for log; do [[ -s $log ]] && { say "last lines of $log:"; tail -n 30 "$log" >&2; }; done; return 0; }

wait_ready() { # name pid-name probe-function log...
  local name=$1 pidname=$2 probe=$3 start=$SECONDS pid
  shift 3
  while ! "$probe"; do
    if ! pid=$(pid_of "$pidname"); then say "$name: exited during startup"; show_logs "$@"; exit 1; fi
    if ((SECONDS - start > TIMEOUT)); then
      say "$name: no answer after ${TIMEOUT}s (pid $pid still running)"; show_logs "$@"; exit 1
    fi
    sleep 0.5
  done
  say "$name: ready ($((SECONDS - start))s)"
}

stop_service() { # name grace-seconds
  local name=$1 grace=$2 pid i
  if ! pid=$(pid_of "$name"); then say "$name: not running"; return 0; fi
  say "$name: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do alive "$pid" || break; sleep 0.2; done
  if alive "$pid"; then
    say "$name: still running after ${grace}s, killing"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$(pid_file "$name")"
}

# ---------------------------------------------------------------- installation

as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

ensure_packages() {
  local missing=()
  command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || missing+=(maven)
  command -v curl >/dev/null || missing+=(curl)
  command -v openssl >/dev/null || missing+=(openssl)          # the TLS tests make their CA and certificates with it
  [[ -x /usr/sbin/clickhouse-server ]] || command -v clickhouse-server >/dev/null || missing+=(clickhouse-server)
  command -v clickhouse-client >/dev/null || missing+=(clickhouse-client)
  command -v chromium >/dev/null || missing+=(chromium)        # needed by the rendering tests
  command -v docker-compose >/dev/null || missing+=(docker-compose) # validates docker-compose.yml
  command -v promtool >/dev/null || missing+=(prometheus)          # promtool checks deploy/prometheus rules
  /usr/bin/python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
  if ((${#missing[@]})); then
    say "packages: apt-get install ${missing[*]}"
    # clickhouse-server's postinst runs `invoke-rc.d clickhouse-server start`, which fails without an
    # init system (aborting the install) or starts a second server on 8123/9000. A policy-rc.d that
    # answers 101 ("not allowed") skips that; only added when the machine has none.
    local policy=/usr/sbin/policy-rc.d added=0
    if [[ ! -e $policy ]]; then
      as_root sh -c "printf '#!/bin/sh\nexit 101\n' >$policy && chmod 755 $policy"; added=1
    fi
    local rc=0
    as_root apt-get update -qq >"$SVC/logs/apt.log" 2>&1 &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "${missing[@]}" >>"$SVC/logs/apt.log" 2>&1 || rc=$?
    ((added)) && as_root rm -f "$policy"
    if ((rc)); then say "apt-get failed; last lines of $SVC/logs/apt.log:"; tail -n 30 "$SVC/logs/apt.log" >&2; exit 1; fi
  fi
  local v
  v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  [[ ${v:-0} -ge 17 ]] || die "Java 17 or newer is needed (found '${v:-none}')"
  ensure_python_tools
}

# Independent readers for the tests: Python's warcio checks the WARC files our warcio.js writes,
# prometheus_client parses our /metrics, PyYAML reads the Grafana provisioning files. Debian's python3, not whatever python3 comes first on PATH,
# so the venv does not break when a pyenv or a newer Python moves. Reinstalled when the list changes.
PYTHON_TOOLS="warcio==1.8.1 prometheus-client==0.26.0 PyYAML==6.0.3"
ensure_python_tools() {
  local venv="$SVC/venv"
  [[ -x $venv/bin/python && -f $venv/.stamp && $(<"$venv/.stamp") == "$PYTHON_TOOLS" ]] && return 0
  say "python tools: creating $venv with $PYTHON_TOOLS"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv" >"$SVC/logs/venv.log" 2>&1 &&
    "$venv/bin/pip" install -q --disable-pip-version-check $PYTHON_TOOLS >>"$SVC/logs/venv.log" 2>&1 || {
    say "python tools: install failed; last lines of $SVC/logs/venv.log:"; tail -n 30 "$SVC/logs/venv.log" >&2
    rm -rf "$venv"; exit 1
  }
  echo "$PYTHON_TOOLS" >"$venv/.stamp"
}

clickhouse_bin() { command -v clickhouse-server 2>/dev/null || echo /usr/sbin/clickhouse-server; }

# A stamp of the pom inside the unpacked folder: editing a version in the pom re-downloads.
stamp() { sha256sum "$1" | cut -c1-16; }

mvn_quiet() {
  mvn -B -q "$@" >"$SVC/logs/maven.log" 2>&1 || {
    say "maven failed; last lines of $SVC/logs/maven.log:"; tail -n 40 "$SVC/logs/maven.log" >&2; exit 1
  }
}

ensure_kafka_libs() {
  local libs="$SVC/kafka/libs" want
  want=$(stamp "$CONF/kafka/pom.xml")
  [[ -f $libs/.stamp && $(<"$libs/.stamp") == "$want" ]] && return 0
  say "kafka: downloading broker jars with Maven (first run only)"
  rm -rf "$libs.tmp"
  mvn_quiet -f "$CONF/kafka/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs.tmp"
  echo "$want" >"$libs.tmp/.stamp"
  rm -rf "$libs" && mv "$libs.tmp" "$libs"
}

ensure_registry_app() {
  local app="$SVC/registry/app" dl="$SVC/registry/download" want
  want=$(stamp "$CONF/registry/pom.xml")
  [[ -f $app/.stamp && $(<"$app/.stamp") == "$want" ]] && return 0
  say "schema-registry: downloading Apicurio Registry with Maven (first run only, ~110 MB)"
  rm -rf "$dl" "$app.tmp" && mkdir -p "$app.tmp"
  mvn_quiet -f "$CONF/registry/pom.xml" dependency:copy -DoutputDirectory="$dl"
  # System tar, not maven's unpack: the archive has pax headers for names over 100 characters.
  tar -xzf "$dl"/*.tar.gz -C "$app.tmp"
  rm -rf "$dl"
  echo "$want" >"$app.tmp/.stamp"
  rm -rf "$app" && mv "$app.tmp" "$app"
}

# ---------------------------------------------------------------- kafka

kafka_java() { # main-class args...: a Kafka tool on the broker classpath, logging to kafka/logs
  java -Dkafka.logs.dir="$SVC/kafka/logs" -Dlog4j2.configurationFile="$CONF/kafka/log4j2.xml" \
    -cp "$SVC/kafka/libs/*" "$@"
}

# An ApiVersions v0 request (api key 18, correlation id 1, client id "dv"); the reply carries the
# same correlation id and error code 0 once the broker serves requests, which an open port does not prove.
kafka_answers() {
  local r
  r=$({ exec 3<>"/dev/tcp/127.0.0.1/$KAFKA_PORT" &&
    printf '\x00\x00\x00\x0c\x00\x12\x00\x00\x00\x00\x00\x01\x00\x02dv' >&3 &&
    timeout 3 head -c 10 <&3 | od -An -tx1; } 2>/dev/null) || return 1
  [[ $(echo $r) == *" 00 00 00 01 00 00" ]]
}

start_kafka() {
  local pid dir="$SVC/kafka"
  if pid=$(pid_of kafka); then say "kafka: already running (pid $pid)"; return 0; fi
  require_free_port kafka "$KAFKA_PORT"
  require_free_port kafka-controller "$KAFKA_CONTROLLER_PORT"
  ensure_kafka_libs
  mkdir -p "$dir/data" "$dir/logs"
  sed -e "s#@KAFKA_PORT@#$KAFKA_PORT#g; s#@CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g; s#@DATA_DIR@#$dir/data#g" \
    "$CONF/kafka/server.properties.in" >"$dir/server.properties"
  if [[ ! -f $dir/data/meta.properties ]]; then
    [[ -s $dir/cluster-id ]] || kafka_java kafka.tools.StorageTool random-uuid >"$dir/cluster-id"
    say "kafka: formatting KRaft storage (cluster id $(<"$dir/cluster-id"))"
    kafka_java kafka.tools.StorageTool format -t "$(<"$dir/cluster-id")" -c "$dir/server.properties" \
      >>"$dir/logs/format.log" 2>&1 || { tail -n 20 "$dir/logs/format.log" >&2; die "kafka: format failed"; }
  fi
  say "kafka: starting on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
  # Heap kept small: 2 cores and the tests share the machine; flags follow kafka-run-class.sh.
  launch kafka "$dir/logs/stdout.log" java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true -Dkafka.logs.dir="$dir/logs" -Dlog4j2.configurationFile="$CONF/kafka/log4j2.xml" \
    -cp "$dir/libs/*" kafka.Kafka "$dir/server.properties"
}
wait_kafka() { wait_ready kafka kafka kafka_answers "$SVC/kafka/logs/stdout.log" "$SVC/kafka/logs/server.log"; }

# ---------------------------------------------------------------- schema registry

registry_base() { echo "http://127.0.0.1:$SCHEMA_REGISTRY_PORT/apis/ccompat/v7"; }
registry_answers() { curl -fsS -o /dev/null --max-time 3 "$(registry_base)/subjects" 2>/dev/null; }

start_registry() {
  local pid dir="$SVC/registry" jar c
  if pid=$(pid_of schema-registry); then say "schema-registry: already running (pid $pid)"; return 0; fi
  require_free_port schema-registry "$SCHEMA_REGISTRY_PORT"
  ensure_registry_app
  jar=
  for c in "$dir/app/quarkus-run.jar" "$dir"/app/*-runner.jar; do [[ -f $c ]] && { jar=$c; break; }; done
  [[ -n $jar ]] || die "schema-registry: no quarkus-run.jar or *-runner.jar in $dir/app"
  mkdir -p "$dir/data" "$dir/logs"
  say "schema-registry: starting on 127.0.0.1:$SCHEMA_REGISTRY_PORT"
  # Settings that make Apicurio behave like Confluent's registry for our clients:
  # - H2 file storage, not the default in-memory H2: schema ids are written into every Kafka record,
  #   so they must survive `down`/`up` exactly as long as the topics do (`clean` wipes both).
  # - apicurio.rules.global.compatibility=BACKWARD: Confluent's default; Apicurio's is none. It is
  #   enforced (409 on an incompatible schema) but ccompat GET /config still answers NONE, so a new
  #   data dir also gets PUT /config {"compatibility":"BACKWARD"} in wait_registry; per subject,
  #   PUT /config/<subject> overrides it (NONE switches checks off).
  # - use-canonical-hash: re-registering the same schema with other whitespace returns the same id.
  # - deletion enabled: Apicurio 3 refuses DELETE /subjects/... unless told otherwise.
  # - C1-only JIT (TieredStopAtLevel=1): starts ~2x faster on 2 busy cores; clients cache schemas,
  #   so the registry never sees enough load for C2 to matter.
  launch schema-registry "$dir/logs/registry.log" java -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$SCHEMA_REGISTRY_PORT" \
    -Dquarkus.http.access-log.enabled=false \
    -Dapicurio.datasource.url="jdbc:h2:file:$dir/data/registry" \
    -Dapicurio.datasource.jdbc.initial-size=2 -Dapicurio.datasource.jdbc.min-size=2 \
    -Dapicurio.storage.snapshot.location="$dir/data" \
    -Dapicurio.rules.global.compatibility=BACKWARD -Dapicurio.ccompat.use-canonical-hash=true \
    -Dapicurio.rest.deletion.group.enabled=true -Dapicurio.rest.deletion.artifact.enabled=true \
    -Dapicurio.rest.deletion.artifact-version.enabled=true \
    -jar "$jar"
}
wait_registry() {
  wait_ready schema-registry schema-registry registry_answers "$SVC/registry/logs/registry.log"
  # Once per data dir (a marker, not "db file is new", so a crash before this point retries it).
  local marker="$SVC/registry/data/.global-backward"
  if [[ ! -f $marker ]]; then
    curl -fsS -o /dev/null -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
      -d '{"compatibility":"BACKWARD"}' "$(registry_base)/config" || die "schema-registry: could not set BACKWARD"
    touch "$marker"
  fi
}

# ---------------------------------------------------------------- clickhouse

clickhouse_answers() {
  [[ $(curl -fsS --max-time 3 "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT/?query=SELECT%201" 2>/dev/null) == 1 ]]
}

start_clickhouse() {
  local pid dir="$SVC/clickhouse"
  if pid=$(pid_of clickhouse); then say "clickhouse: already running (pid $pid)"; return 0; fi
  require_free_port clickhouse "$CLICKHOUSE_HTTP_PORT"
  require_free_port clickhouse-native "$CLICKHOUSE_TCP_PORT"
  mkdir -p "$dir/etc" "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/logs"
  sed -e "s#@DIR@#$dir#g; s#@HTTP_PORT@#$CLICKHOUSE_HTTP_PORT#g; s#@TCP_PORT@#$CLICKHOUSE_TCP_PORT#g" \
    "$CONF/clickhouse/config.xml.in" >"$dir/etc/config.xml"
  cp "$CONF/clickhouse/users.xml" "$dir/etc/users.xml"
  say "clickhouse: starting on 127.0.0.1:$CLICKHOUSE_HTTP_PORT (native $CLICKHOUSE_TCP_PORT)"
  launch clickhouse "$dir/logs/stdout.log" "$(clickhouse_bin)" --config-file="$dir/etc/config.xml"
}
wait_clickhouse() {
  wait_ready clickhouse clickhouse clickhouse_answers "$SVC/clickhouse/logs/stdout.log" "$SVC/clickhouse/logs/clickhouse-server.err.log"
}

# ---------------------------------------------------------------- commands

print_env() {
  echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
  echo "SCHEMA_REGISTRY_URL=$(registry_base)"
  echo "CLICKHOUSE_URL=http://127.0.0.1:$CLICKHOUSE_HTTP_PORT"
}

status_line() { # label pid-name probe address
  local pid state
  if pid=$(pid_of "$2"); then
    if "$3"; then state="running"; else state="not answering"; STATUS_RC=3; fi
    printf '%-16s %-14s pid %-8s %s\n' "$1" "$state" "$pid" "$4"
  else
    STATUS_RC=3
    printf '%-16s %-14s %-12s %s\n' "$1" stopped "" "$4"
  fi
}

lock() {
  mkdir -p "$SVC/run" "$SVC/logs"
  exec 9>"$SVC/run/lock"
  flock -w 900 9 || die "another dev-services.sh is still running"
}

cmd_up() {
  local t0=$SECONDS
  ensure_packages
  # Launch all three before waiting on any: the JVMs start in parallel.
  start_kafka; start_registry; start_clickhouse
  wait_kafka; wait_registry; wait_clickhouse
  say "up in $((SECONDS - t0))s; $(print_env | tr '\n' ' ')"
}

cmd_down() {
  stop_service clickhouse 30
  stop_service schema-registry 30
  stop_service kafka 60
}

main() {
  case "${1:-}" in
    up) lock; cmd_up ;;
    tools) lock; ensure_packages ;;
    down) lock; cmd_down ;;
    env) print_env ;;
    status)
      STATUS_RC=0
      status_line kafka kafka kafka_answers "127.0.0.1:$KAFKA_PORT"
      status_line schema-registry schema-registry registry_answers "$(registry_base)"
      status_line clickhouse clickhouse clickhouse_answers "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT"
      exit "$STATUS_RC" ;;
    clean)
      lock; cmd_down
      say "clean: removing data and logs under $SVC (downloads kept)"
      rm -rf "$SVC/kafka/data" "$SVC/kafka/logs" "$SVC/kafka/cluster-id" "$SVC/kafka/server.properties" \
        "$SVC/registry/data" "$SVC/registry/logs" "$SVC/clickhouse" "$SVC/logs" ;;
    start-kafka) lock; ensure_packages; start_kafka; wait_kafka ;;
    stop-kafka) lock; stop_service kafka 60 ;;
    restart-kafka) lock; stop_service kafka 60; start_kafka; wait_kafka ;;
    start-registry) lock; ensure_packages; start_registry; wait_registry ;;
    stop-registry) lock; stop_service schema-registry 30 ;;
    restart-registry) lock; stop_service schema-registry 30; start_registry; wait_registry ;;
    start-clickhouse) lock; ensure_packages; start_clickhouse; wait_clickhouse ;;
    stop-clickhouse) lock; stop_service clickhouse 30 ;;
    restart-clickhouse) lock; stop_service clickhouse 30; start_clickhouse; wait_clickhouse ;;
    *) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
}

main "$@"
