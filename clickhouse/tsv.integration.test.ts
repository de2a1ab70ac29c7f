// test-plan: e2e uses=clickhouse
// TabSeparated inserts on the ClickHouse server named by CLICKHOUSE_URL (18.16 in the dev services).
import { test } from 'node:test';
import { serverEngine } from './testing/test-engines.js';
import { tsvSuite } from './testing/tsv-suite.js';

const server = serverEngine();
if (server) tsvSuite(server);
else test('ClickHouse server TabSeparated tests need CLICKHOUSE_URL', { skip: 'CLICKHOUSE_URL is not set' }, () => {});
