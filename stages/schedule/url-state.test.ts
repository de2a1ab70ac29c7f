import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import { urlsStore, type UrlState } from './url-state.js';

const state: UrlState = {
  url: 'http://a.test/p', depth: 1, via: 'link', source_url: 'http://a.test/', redirect_hops: 0, discovered_at: 1_700_000_000_000,
  inlinks: 3, priority_hint: -1, changefreq: '', lastmod: 0, sitemap_depth: 0, phase: 'waiting', queue_seq: 7, queue_rank: 12,
  attempt: 1, etag: '"v1"', last_modified: '', sha1: 'a'.repeat(40), interval_ms: 60_000, next_due_at: 1_700_000_060_000,
  fetches: 2, changes: 1, gone: 0, captured_at: 1_700_000_000_500, score: 0.75, lost: 1,
};

/** The layout of values written before `fields` were appended. */
function writtenWithout(...fields: (keyof UrlState)[]) {
  const older = Object.fromEntries(Object.entries(state).filter(([name]) => !fields.includes(name as keyof UrlState)));
  const types = Object.keys(older).map((name) => {
    const v = older[name];
    const type = typeof v === 'string' ? 'string' : name === 'priority_hint' ? 'double' : name === 'score' ? 'float'
      : ['discovered_at', 'lastmod', 'queue_seq', 'queue_rank', 'interval_ms', 'next_due_at', 'captured_at'].includes(name) ? 'long' : 'int';
    return { name, type };
  });
  const writer = avro.Type.forSchema({ type: 'record', name: 'UrlState', namespace: 'crawlstream.store', fields: types } as avro.Schema);
  return { older, bytes: writer.toBuffer(older) };
}

describe('the urls store values', () => {
  it('should round-trip a URL\'s state', () => {
    const codec = urlsStore.values;
    assert.deepEqual({ ...codec.decode(codec.encode(state)) }, state);
  });

  it('should read a state written before captured_at existed, with captured_at 0 and no score', () => {
    // The layout of data directories and changelogs written before the fields were appended.
    const { older, bytes } = writtenWithout('captured_at', 'score', 'lost');
    assert.deepEqual({ ...urlsStore.values.decode(bytes) }, { ...older, captured_at: 0, score: -1, lost: 0 });
  });

  it('should read a state written before a focused crawl\'s score existed, unscored', () => {
    const { older, bytes } = writtenWithout('score', 'lost');
    assert.deepEqual({ ...urlsStore.values.decode(bytes) }, { ...older, score: -1, lost: 0 });
  });

  it('should read a state written before a lost lease was counted, never lost', () => {
    const { older, bytes } = writtenWithout('lost');
    assert.deepEqual({ ...urlsStore.values.decode(bytes) }, { ...older, lost: 0 });
  });
});
