// test-plan: e2e uses=clickhouse
// `crawlstream query` on the ClickHouse server named by CLICKHOUSE_URL.
import { test } from 'node:test';
import { querySuite } from './testing/query-suite.js';
import { serverEngine } from './testing/test-engines.js';

const server = serverEngine();
if (server) querySuite(server);
else test('ClickHouse server query tests need CLICKHOUSE_URL', { skip: 'CLICKHOUSE_URL is not set' }, () => {});
