// test-plan: process
// A Kafka command given brokers it cannot reach: kafkajs retries for about 75 s without a word, so the
// command says what it is waiting for, and why, while it waits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, signalWhen } from '../test/support/cli.js';

describe('a Kafka command that cannot reach its brokers', () => {
  it('should say within seconds which address it is waiting for and the connection error', async () => {
    const run = runCli(['status', '--brokers', '127.0.0.1:9']); // nothing listens on the discard port here
    const told = () => /still connecting to Kafka at 127\.0\.0\.1:9 after \d+ s \(.*ECONNREFUSED/.test(run.stderrSoFar());
    let bound: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      signalWhen(run, told, 'SIGTERM'),
      new Promise<number>((resolve) => (bound = setTimeout(() => resolve(-1), 30_000))),
    ]);
    clearTimeout(bound);
    if (stopped === -1) run.child.kill('SIGKILL');
    const { stderr } = await run;
    assert.notEqual(stopped, -1, `nothing said within 30 s: ${stderr}`);
    assert.match(stderr, /still connecting to Kafka at 127\.0\.0\.1:9/);
  });
});
