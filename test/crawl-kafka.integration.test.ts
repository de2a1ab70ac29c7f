// test-plan: e2e paced ~45s
// End to end on real services (scripts/dev-services.sh): the crawl of the synthetic web on Kafka
// with two workers, results in the ClickHouse server, held to the same server-side checks as the
// embedded crawl.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlOutcomeTests, TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

describe('Kafka crawl of the synthetic web with two workers', () => {
  let crawl: KafkaCrawl;
  before(async () => {
    crawl = await kafkaCrawl('two');
  });
  after(() => stopCrawl(crawl));

  it('should reach idle, as `status --wait-idle` reports', () => {
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    assert.match(crawl.idle.stdout, /idle: every topic is consumed/);
  });

  crawlOutcomeTests(() => ({ web: crawl.web, pages: crawl.pages, fetches: crawl.fetches, delayMs: TEST_DELAY_MS }));
});
