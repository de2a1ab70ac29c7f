#!/usr/bin/env bash
# The README's test command: installs everything the tests need on a fresh machine (npm packages;
# Kafka, the schema registry, ClickHouse server, Chromium and docker-compose through
# scripts/dev-services.sh), starts the services, runs every test, and stops the services again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npm ci --no-audit --no-fund
scripts/dev-services.sh up
trap 'scripts/dev-services.sh down || true' EXIT
eval "$(scripts/dev-services.sh env)"
export KAFKA_BROKERS SCHEMA_REGISTRY_URL CLICKHOUSE_URL
npm test
