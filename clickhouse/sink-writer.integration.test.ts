// test-plan: e2e uses=clickhouse ~35s
// Delivery guarantees of the sink on the ClickHouse server named by CLICKHOUSE_URL.
import { test } from 'node:test';
import { sinkSuite } from './testing/sink-suite.js';
import { serverEngine } from './testing/test-engines.js';

const server = serverEngine();
if (server) sinkSuite(server);
else test('ClickHouse server sink tests need CLICKHOUSE_URL', { skip: 'CLICKHOUSE_URL is not set' }, () => {});
