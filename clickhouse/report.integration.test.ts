// test-plan: e2e uses=clickhouse
// The report's queries on the ClickHouse server named by CLICKHOUSE_URL.
import { test } from 'node:test';
import { reportSuite } from './testing/report-suite.js';
import { serverEngine } from './testing/test-engines.js';

const server = serverEngine();
if (server) reportSuite(server);
else test('ClickHouse server report tests need CLICKHOUSE_URL', { skip: 'CLICKHOUSE_URL is not set' }, () => {});
