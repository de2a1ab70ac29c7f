// test-plan: e2e uses=kafka,registry
// The runtime contract (conformance-suite.ts) on a real broker and registry.
import { describe } from 'node:test';
import { requireServices } from '../../test/support/services.js';
import { conformanceSuite } from './conformance-suite.js';
import { kafkaHarness } from './kafka-harness.js';

describe('runtime contract: Kafka', () => conformanceSuite(() => kafkaHarness(requireServices().kafka, requireServices().registry)));
