// test-plan: e2e paced ~70s
// A focused crawl on Kafka: `seed` stores the examples as content among the crawl's options, and
// every worker builds the model from them, judging each page it parses. A small crawl of the topic
// web (three pages per host) on two workers, against the shared services.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';
import { query } from './support/cli.js';

describe('a focused crawl on Kafka', () => {
  let crawl: KafkaCrawl | undefined;
  after(() => stopCrawl(crawl));

  it('should judge every page on every worker with the examples seed stored', async () => {
    const examples = mkdtempSync(join(tmpdir(), 'focus-kafka-'));
    crawl = await kafkaCrawl('focus', undefined, {
      scenario: 'topic',
      seedFlags: (web) => {
        const dir = join(examples, 'examples');
        mkdirSync(dir);
        web.topic!.examples.forEach((t, i) => writeFileSync(join(dir, `page-${i}.txt`), t));
        return ['--focus-examples', dir, '--default-delay-ms', '20', '--no-sitemaps', '--max-pages-per-host', '3'];
      },
    });
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    const [row] = await query<Record<string, string | number>>('',
      'SELECT count() AS pages, countIf(relevance >= 0) AS judged, uniqExact(focus_threshold) AS thresholds, any(focus_threshold) AS threshold FROM parsed_pages FINAL',
      ['--clickhouse-url', crawl.chUrl]);
    assert.ok(Number(row.pages) >= 20, `${row.pages} pages parsed`);
    assert.equal(Number(row.judged), Number(row.pages), 'every page judged');
    assert.equal(Number(row.thresholds), 1, 'by one model, whichever worker parsed it');
    assert.ok(Number(row.threshold) > 0.2 && Number(row.threshold) < 0.5);
  });
});
