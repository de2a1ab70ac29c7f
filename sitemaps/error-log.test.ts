import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorLog, MAX_ENTRY_SAMPLES } from './error-log.js';

test('should keep only the first entry messages as samples, and every other message', () => {
  const log = new ErrorLog();
  log.add('format: first');
  for (let i = 1; i <= MAX_ENTRY_SAMPLES + 5; i++) log.add(`entry ${i}: bad`);
  log.add('limit: last');
  const list = log.list();
  assert.equal(list.length, 2 + MAX_ENTRY_SAMPLES + 1);
  assert.equal(list[0], 'format: first');
  assert.equal(list.at(-2), 'limit: last');
  assert.equal(list.at(-1), 'errors: 5 more entry messages not listed (see the counters)');
});
