// `crawlstream query` on embedded chdb (query-output.integration.test.ts runs the same suite on a server).
import { querySuite } from './testing/query-suite.js';
import { chdbEngine } from './testing/test-engines.js';

querySuite(chdbEngine());
