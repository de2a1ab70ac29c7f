// A topic's declared record bound holds on every runtime: a record encoded above it fails the record
// that made it (a dead letter saying why), where on Kafka the broker would refuse it at commit and
// fail the worker's whole transaction at every retry.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineProcessor, defineTopic, TopologyBuilder } from '../api.js';
import { words, type Word } from '../examples/word-count.js';
import { TopologyTestDriver } from '../test-driver/topology-test-driver.js';

const echoes = defineTopic<Word>()({ ...words, name: 'echoes', maxRecordBytes: 64 });

const echo = defineProcessor({
  name: 'echo', description: 'forwards every word to a topic of small records', inputs: [words], outputs: [echoes], stores: [],
  delivery: 'exactly once',
  create: () => ({
    process(r, ctx) {
      ctx.forward('echoes', r.key, r.value);
    },
  }),
});

describe('a record over its topic\'s bound', () => {
  it('should fail the record that made it, with the sizes, and let the others through', async () => {
    const topology = new TopologyBuilder().topic(words).topic(echoes).processor(echo).build();
    const d = await TopologyTestDriver.create({ topology, services: {} });
    await d.pipe('words', 'a', { word: 'a', doc: 'short' });
    await d.pipe('words', 'b', { word: 'b'.repeat(200), doc: 'long' });
    await d.pipe('words', 'c', { word: 'c', doc: 'short' });
    assert.deepEqual(d.readOutput('echoes').map((r) => r.key), ['a', 'c']);
    const letters = d.readOutput('dead-letters');
    await d.close();
    assert.equal(letters.length, 1);
    assert.equal(letters[0].value.key, 'b');
    assert.match(letters[0].value.reason, /a record for topic echoes is \d+ bytes, over the topic's bound of 64/);
  });

  it('should still leave a dead letter when the failed record is too large for one, saying where the record is', async () => {
    const bigWords = defineTopic<Word>()({ ...words, name: 'big-words', maxRecordBytes: 64 * 1024 * 1024 });
    const refuse = defineProcessor({
      name: 'refuse', description: 'fails every record', inputs: [bigWords], outputs: [], kind: 'sink', stores: [], delivery: 'none',
      create: () => ({
        process() {
          throw new Error('refused');
        },
      }),
    });
    const d = await TopologyTestDriver.create({ topology: new TopologyBuilder().topic(bigWords).processor(refuse).build(), services: {} });
    await d.pipe('big-words', 'huge', { word: 'x'.repeat(17 * 1024 * 1024), doc: 'd' });
    const letters = d.readOutput('dead-letters');
    await d.close();
    assert.equal(letters.length, 1);
    assert.equal(letters[0].value.value.length, 0);
    assert.match(letters[0].value.reason, /refused[\s\S]*is not kept here: too large for dead-letters; read it at big-words\/\d+@0/);
  });
});
