#!/usr/bin/env bash
# The README's test command: installs everything the tests need on a fresh machine (npm packages;
# Kafka, the schema registry, ClickHouse server, Chromium and docker-compose through
# scripts/dev-services.sh), starts the services, runs every test, and stops the services again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The services start while npm installs and the code compiles: Kafka alone takes ~15 s to be ready.
scripts/dev-services.sh up &
services=$!
stop() {
  kill "$services" 2>/dev/null && wait "$services" 2>/dev/null
  scripts/dev-services.sh down || true
}
trap stop EXIT
# `npm install`, not `npm ci`: chdb's per-platform binaries are optional dependencies, and a lock
# written where only one platform's package is reachable lists only that one; `npm ci` then refuses
# the lock as out of sync, while `npm install` keeps every locked version and fetches the binary for
# the platform it runs on.
# It also compiles the code (the package's prepare script): no second build here.
npm install --no-audit --no-fund
if ! wait "$services"; then
  echo "test-all: the services did not start; what scripts/dev-services.sh said is above" >&2
  exit 1
fi
eval "$(scripts/dev-services.sh env)"
export KAFKA_BROKERS SCHEMA_REGISTRY_URL CLICKHOUSE_URL
node scripts/run-tests.mjs
