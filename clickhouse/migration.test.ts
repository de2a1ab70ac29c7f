// Migrations and several crawls in one database, on embedded chdb (migration.integration.test.ts: the server).
import { migrationSuite } from './migration-suite.js';
import { chdbEngine } from './test-engines.js';

migrationSuite(chdbEngine());
