// test-plan: e2e uses=clickhouse
// The crawl-history schema on the ClickHouse server named by CLICKHOUSE_URL.
import { test } from 'node:test';
import { schemaSuite } from './testing/schema-suite.js';
import { serverEngine } from './testing/test-engines.js';

const server = serverEngine();
if (server) schemaSuite(server);
else test('ClickHouse server schema tests need CLICKHOUSE_URL', { skip: 'CLICKHOUSE_URL is not set' }, () => {});
