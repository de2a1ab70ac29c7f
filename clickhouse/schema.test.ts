// The crawl-history schema on embedded chdb (the same suite runs on a server in schema.integration.test.ts).
import { schemaSuite } from './testing/schema-suite.js';
import { chdbEngine } from './testing/test-engines.js';

schemaSuite(chdbEngine());
