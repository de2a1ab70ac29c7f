// The runtime contract on the broker-free runtimes; engine/conformance/conformance-kafka.integration.test.ts
// runs the same suite on Kafka.
import { describe } from 'node:test';
import { conformanceSuite } from './conformance-suite.js';
import { driverHarness, embeddedHarness } from './harnesses.js';

describe('runtime contract: test driver', () => conformanceSuite(driverHarness));
describe('runtime contract: embedded runtime', () => conformanceSuite(embeddedHarness));
