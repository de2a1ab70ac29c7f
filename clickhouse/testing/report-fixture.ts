// A small crawl with something in every chart: robots.txt outcomes of each kind, statuses and
// errors, a host fetched too fast, duplicate clusters, and URLs skipped for several reasons. Hosts
// are under .test.
import type { Duplicate, FetchResult, ParsedPage, SkippedUrl } from '../../schemas/records.js';
import { duplicate, fetchResult, parsedPage, prng, sha1, simhashOf, skippedUrl, type SourcedRecord } from './test-fixtures.js';

const START = Date.UTC(2026, 2, 14, 9, 0, 0);

export function reportFixture(): SourcedRecord[] {
  const rnd = prng(42);
  const fetched: FetchResult[] = [];
  const parsed: ParsedPage[] = [];
  const dups: Duplicate[] = [];
  const skipped: SkippedUrl[] = [];
  const robotsStatus = [200, 200, 200, 200, 200, 200, 404, 404, 503, 301, 0];
  const hosts = robotsStatus.map((_, i) => (i === 0 ? 'rude.test' : `site${i}.test`));
  hosts.forEach((host, h) => {
    let t = START + h * 1500;
    const status = robotsStatus[h];
    fetched.push(fetchResult({
      fetch_id: `${host}#0`, url: `http://${host}/robots.txt`, kind: 'robots', status, started_at: t,
      error: status === 0 ? 'connect: ECONNREFUSED' : '', body: status === 200 ? Buffer.from('User-agent: *\nCrawl-delay: 1\n') : Buffer.alloc(0),
    }));
    if (status >= 500 || status === 0) {
      // nothing more is fetched from an unreachable host
      skipped.push(skippedUrl({ url: `http://${host}/`, reason: 'robots-unreachable', detail: `robots.txt: ${status || 'no response'}`, decided_at: t + 100 }));
      return;
    }
    for (let i = 0; i < 1 + (h % 4); i++) {
      skipped.push(skippedUrl({ url: `http://${host}/private/${i}`, reason: 'robots-disallowed', detail: 'Disallow: /private', decided_at: t + 200 + i }));
    }
    if (host === 'rude.test') {
      for (let i = 0; i < 5; i++) skipped.push(skippedUrl({ url: `http://${host}/more/${i}`, reason: 'host-budget', detail: '40 pages', decided_at: t + 300 + i }));
    }
    const pages = host === 'rude.test' ? 40 : 15 + Math.floor(rnd() * 25);
    for (let i = 1; i <= pages; i++) {
      // rude.test is the politeness violation the audit must show: 150 ms apart, overlapping.
      t += host === 'rude.test' ? 150 : 1000 + Math.floor(rnd() * 9000);
      const url = `http://${host}/page/${i}`;
      const roll = rnd();
      const pageStatus = roll < 0.8 ? 200 : roll < 0.86 ? 301 : roll < 0.92 ? 404 : roll < 0.96 ? 500 : 0;
      const error = pageStatus === 0 ? (rnd() < 0.5 ? 'timeout: no response in 30 s' : 'dns: ENOTFOUND') : pageStatus === 500 ? 'http: 500 Internal Server Error' : '';
      const fetchId = `${host}#${i}`;
      const bytes = pageStatus === 200 ? 2000 + Math.floor(rnd() * 60_000) : 0;
      fetched.push(fetchResult({
        fetch_id: fetchId, url, status: pageStatus, error, started_at: t, elapsed_ms: host === 'rude.test' ? 400 : 80 + Math.floor(rnd() * 400),
        bytes, final_url: pageStatus === 301 ? `${url}/` : url, depth: 1 + (i % 4),
      }));
      if (pageStatus !== 200) continue;
      const content = i % 9 === 0 ? 'shared boilerplate' : url;
      parsed.push(parsedPage({
        fetch_id: fetchId, url, fetched_at: t, title: `Page ${i} of ${host}`, content_hash: sha1(content), simhash: simhashOf(content),
        links: [{ url: `http://${hosts[(h + 1) % hosts.length]}/page/${i}`, anchor: 'next site', nofollow: false }],
        // A focused crawl: the later a page, the likelier on the topic.
        relevance: Math.min(1, rnd() * (0.4 + (t - START) / 200_000)), focus_threshold: 0.5,
      }));
      if (i % 9 === 0 && url !== 'http://site1.test/page/9') {
        dups.push(duplicate({ url, host, fetch_id: fetchId, duplicate_of: 'http://site1.test/page/9', kind: 'exact', detected_at: t + 5 }));
      } else if (i % 7 === 0 && url !== 'http://site1.test/page/7') {
        dups.push(duplicate({ url, host, fetch_id: fetchId, duplicate_of: 'http://site1.test/page/7', kind: 'near', distance: 2, detected_at: t + 5 }));
      }
    }
  });
  // --recrawl: an hour later the first pages of three hosts are fetched again; the even ones changed.
  for (const host of ['site1.test', 'site2.test', 'site3.test']) {
    for (let i = 1; i <= 6; i++) {
      const changed = i % 2 === 0;
      fetched.push(fetchResult({
        fetch_id: `${host}#r${i}`, url: `http://${host}/page/${i}`, via: 'recrawl', status: changed ? 200 : 304, changed, conditional: true,
        started_at: START + 3_600_000 + i * 5_000 + hosts.indexOf(host) * 1_000, bytes: changed ? 4000 : 0,
        recrawl_interval_ms: changed ? 1_800_000 : 172_800_000,
      }));
    }
  }
  skipped.push(skippedUrl({ url: 'http://10.0.0.7.test/', reason: 'network-policy', detail: 'resolves to 10.0.0.7, a private network', decided_at: START + 50 }));
  const byTime = <T extends { started_at?: number; fetched_at?: number; detected_at?: number; decided_at?: number }>(a: T, b: T) =>
    (a.started_at ?? a.fetched_at ?? a.detected_at ?? a.decided_at ?? 0) - (b.started_at ?? b.fetched_at ?? b.detected_at ?? b.decided_at ?? 0);
  return [
    ...fetched.sort(byTime).map((value, offset) => ({ topic: 'fetched' as const, partition: 0, offset, value })),
    ...parsed.sort(byTime).map((value, offset) => ({ topic: 'parsed' as const, partition: 0, offset, value })),
    ...dups.sort(byTime).map((value, offset) => ({ topic: 'duplicates' as const, partition: 0, offset, value })),
    ...skipped.sort(byTime).map((value, offset) => ({ topic: 'skipped' as const, partition: 0, offset, value })),
  ];
}
