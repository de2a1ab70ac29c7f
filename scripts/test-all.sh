#!/usr/bin/env bash
# The README's test command: installs everything the tests need on a fresh machine (npm packages;
# Kafka, the schema registry, ClickHouse server, Chromium and docker-compose through
# scripts/dev-services.sh), starts the services, runs every test, and stops the services again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# `npm install`, not `npm ci`: chdb's per-platform binaries are optional dependencies, and a lock
# written where only one platform's package is reachable lists only that one; `npm ci` then refuses
# the lock as out of sync, while `npm install` keeps every locked version and fetches the binary for
# the platform it runs on.
npm install --no-audit --no-fund
scripts/dev-services.sh up
trap 'scripts/dev-services.sh down || true' EXIT
eval "$(scripts/dev-services.sh env)"
export KAFKA_BROKERS SCHEMA_REGISTRY_URL CLICKHOUSE_URL
npm test
