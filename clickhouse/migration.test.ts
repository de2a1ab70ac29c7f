// Migrations and several crawls in one database, on embedded chdb (migration.integration.test.ts: the server).
import { migrationSuite } from './testing/migration-suite.js';
import { chdbEngine } from './testing/test-engines.js';

migrationSuite(chdbEngine());
