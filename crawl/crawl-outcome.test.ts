import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlOutcome, whyNothing } from './crawl-outcome.js';
import { CrawlJournal } from './crawl-journal.js';
import { formatSummary } from '../cli/progress.js';
import type { CrawlSummary } from './embedded-crawl.js';

function summary(counters: Record<string, number>, journal?: CrawlJournal, pages = 0): CrawlSummary {
  return {
    pages, robotsRequests: counters['fetch.robots-requests'] ?? 0, errors: 0, bytes: 0, frontier: 0, inFlight: 0, hostsWaiting: 0, hostsActive: 0,
    newUrls: 0, duplicates: 0, deadLetters: 0, recrawls: 0, notModified: 0, recrawlsDue: 0, recrawlsWaiting: 0, focusJudged: 0, focusRelevant: 0, counters,
    elapsedMs: 2000, stoppedEarly: false, lostRecords: 0, lostUnprocessed: 0, journal,
  };
}

describe('the crawl\'s summary', () => {
  it('should count what answered, what failed and why, what was skipped and why, and the warnings said once', () => {
    const counters = {
      'fetch.requests': 12, 'fetch.status.2xx': 9, 'fetch.status.4xx': 1, 'fetch.errors.timeout': 2, 'fetch.errors.tls': 1, 'resolve.errors.dns': 3,
      'resolve.errors.network-refused': 2, 'schedule.dropped.robots-disallowed': 4, 'normalize.rejected.max-depth': 5, 'fetch.notices.sitemap-is-html': 37,
      'fetch.robots-requests': 3, 'fetch.dropped.sitemap-off-host': 3,
    };
    const o = crawlOutcome(counters);
    assert.equal(o.nothingAnswered, false);
    assert.deepEqual([...o.errors], [['dns', 3], ['timeout', 2], ['tls', 1]]);
    assert.deepEqual([...o.skipped], [['max-depth', 5], ['robots-disallowed', 4], ['sitemap-off-host', 3], ['network-policy', 2]]);
    assert.equal(formatSummary(summary(counters, undefined, 12), 'dir'),
      'crawled 12 pages (10 answered: 9 2xx, 1 4xx; 6 errors: 3 dns, 2 timeout, 1 tls; 14 skipped: 5 max-depth, 4 robots-disallowed, 3 sitemap-off-host, 2 network-policy; ' +
      '3 robots.txt requests; 0 duplicates; 37 warnings said once: 37 sitemap-is-html) in 2.0 s: 6.0 pages/s; data in dir');
  });

  it('should say why nothing was fetched, with an example host, when not one URL got an answer', () => {
    const journal = new CrawlJournal(() => {});
    for (let i = 0; i < 3; i++) journal.fetchDone({ kind: 'robots', status: 0, errorKind: 'dns', truncated: false, seconds: 0, wireBytes: 0, host: 'example.org', error: 'dns: example.org did not resolve (ENOTFOUND)' });
    const counters = { 'resolve.errors.dns': 3, 'schedule.robots.gave-up': 1, 'schedule.dropped.robots-unreachable': 1 };
    assert.match(formatSummary(summary(counters, journal), 'dir'),
      /^crawled 0 pages: every host's robots\.txt was unreachable \(example\.org: DNS did not resolve\) \(0 answered; 3 errors: 3 dns; 1 skipped: 1 robots-unreachable;/);
    const tls = new CrawlJournal(() => {});
    tls.fetchDone({ kind: 'page', status: 0, errorKind: 'tls', truncated: false, seconds: 0, wireBytes: 0, host: 'a.test', error: 'tls: expired: the certificate has expired (CERT_HAS_EXPIRED) from a.test:443' });
    const pages = { 'fetch.requests': 1, 'fetch.errors.tls': 1, 'schedule.robots.allow-all': 1 };
    assert.equal(whyNothing(crawlOutcome(pages), pages, tls), 'every request failed, most with tls (a.test: TLS expired: the certificate has expired (CERT_HAS_EXPIRED) from a.test:443)');
    const disallowed = { 'schedule.robots.rules': 1, 'schedule.dropped.robots-disallowed': 7 };
    assert.equal(whyNothing(crawlOutcome(disallowed), disallowed), 'robots.txt disallowed every URL');
    const sitemapOnly = { 'fetch.responses.sitemap': 1 };
    assert.equal(crawlOutcome(sitemapOnly).nothingAnswered, false, 'a sitemap that answered is a URL that answered');
  });

  it('should say a repeated warning once per kind and pass every fetch on', () => {
    const said: string[] = [];
    const seen: string[] = [];
    const journal = new CrawlJournal((m) => said.push(m), { fetchDone: (f) => seen.push(f.kind), notice: (k) => seen.push(k) });
    for (const host of ['a', 'b', 'c']) journal.notice('sitemap-is-html', `http://${host}.test/sitemap.xml: sitemap-is-html: …`);
    journal.notice('sitemap-limit', 'http://d.test/sitemap.xml: sitemap-limit: …');
    journal.fetchDone({ kind: 'page', status: 200, errorKind: '', truncated: false, seconds: 0, wireBytes: 0 });
    assert.deepEqual(said, [
      'http://a.test/sitemap.xml: sitemap-is-html: … (further "sitemap-is-html" warnings are counted, not shown: see the summary)',
      'http://d.test/sitemap.xml: sitemap-limit: … (further "sitemap-limit" warnings are counted, not shown: see the summary)',
    ]);
    assert.deepEqual(seen, ['sitemap-is-html', 'sitemap-is-html', 'sitemap-is-html', 'sitemap-limit', 'page']);
  });
});
