// Integration tests run against real services started by scripts/dev-services.sh (the README's
// test command does it). Without them a test fails with a clear message instead of skipping.

export function requireServices(): { kafka: string; registry: string; clickhouse: string } {
  const kafka = process.env.KAFKA_BROKERS;
  const registry = process.env.SCHEMA_REGISTRY_URL;
  const clickhouse = process.env.CLICKHOUSE_URL;
  if (!kafka || !registry || !clickhouse) {
    throw new Error('integration tests need KAFKA_BROKERS, SCHEMA_REGISTRY_URL and CLICKHOUSE_URL: run `npm run test:all`, or `scripts/dev-services.sh up && eval "$(scripts/dev-services.sh env)"` first');
  }
  return { kafka, registry, clickhouse };
}
