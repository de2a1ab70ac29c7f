// test-plan: unit ~25s
// Delivery guarantees of the sink on embedded chdb (the same suite runs on a server in
// sink-writer.integration.test.ts).
import { sinkSuite } from './testing/sink-suite.js';
import { chdbEngine } from './testing/test-engines.js';

sinkSuite(chdbEngine());
