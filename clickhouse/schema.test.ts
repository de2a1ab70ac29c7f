// The crawl-history schema on embedded chdb (the same suite runs on a server in schema.integration.test.ts).
import { schemaSuite } from './schema-suite.js';
import { chdbEngine } from './test-engines.js';

schemaSuite(chdbEngine());
