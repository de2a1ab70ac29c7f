// test-plan: e2e uses=clickhouse
// Migrations and several crawls in one database, on the ClickHouse server named by CLICKHOUSE_URL.
import { test } from 'node:test';
import { migrationSuite } from './testing/migration-suite.js';
import { serverEngine } from './testing/test-engines.js';

const server = serverEngine();
if (server) migrationSuite(server);
else test('ClickHouse server migration tests need CLICKHOUSE_URL', { skip: 'CLICKHOUSE_URL is not set' }, () => {});
