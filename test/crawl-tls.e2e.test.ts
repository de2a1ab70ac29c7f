// test-plan: e2e ~27s
// The real web on loopback, judged from the servers' own logs and the crawl's rows: HTTPS hosts with a
// CA made at test time (--ca-file), hosts whose certificates expired, sign themselves or name another
// host; feeds found through <link rel=alternate> and a sitemap index; a proxy (CONNECT and forwarding)
// with --tls-verify record; and a crawl of a host that does not resolve, which must say so and exit 4.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { SyntheticWeb, WebRequest } from '../test-web/synthetic-web.js';
import { startTestProxy, type TestProxy } from '../test-web/test-proxy.js';
import { BACKLOG } from '../test-web/scenario-tls.js';
import { toolsOrSkip } from '../warc/warc-reader.js';
import type { PythonTools } from '../warc/python-tools.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { assertPolite, assertRobotsFirst } from './support/crawl-checks.js';
import { readCaptures } from './support/warc-captures.js';
import { crawlArgs, scratchDir, testWeb } from './support/test-crawl.js';

const DELAY_MS = 50;
const tools = toolsOrSkip();
const urlOf = (r: WebRequest) => `${r.hostHeader?.startsWith('plain.') ? 'http' : 'https'}://${r.hostHeader}${r.path}`;
const BAD = ['expired.tls.test', 'self.tls.test', 'wrong.tls.test'];

// Not --allow-network: the first crawl allows loopback itself, the proxied one reaches the web only through the proxy.
const crawl = (web: SyntheticWeb, dataDir: string, extra: string[]): Promise<CliRun> => runCli(crawlArgs(web, dataDir, { delayMs: DELAY_MS, loopback: false }, extra));

// Three crawls of webs of their own (the proxy's on other addresses), side by side; the tests within
// each (sharing its crawl) in order, as written.
describe('crawling the real web on loopback', { concurrency: true }, () => {
  describe('TLS, feeds and the summary, verifying certificates (the default)', { concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'tls' }, 'crawl-tls-');
    let web: SyntheticWeb;
    let dataDir: string;
    let run: CliRun;

    before(async () => {
      ({ web, dataDir } = t);
      const warc = 'skip' in tools ? [] : ['--warc-dir', join(dataDir, 'warc')];
      run = await crawl(web, dataDir, ['--allow-network', '127.0.0.0/8', ...web.tls!.crawlFlags, '--exclude', '*/b', ...warc]);
    });

    it('should crawl the HTTPS hosts it trusts through --ca-file, politely and robots.txt first, and exit 0', () => {
      assert.equal(run.code, 0, run.stderr);
      const requested = new Set(web.requests.map(urlOf));
      const missing = web.tls!.goodPages.filter((u) => !u.endsWith('/b') && !requested.has(u));
      assert.deepEqual(missing, [], 'pages of the HTTPS and HTTP hosts');
      assertPolite(web, DELAY_MS);
      assertRobotsFirst(web.requests);
    });

    it('should refuse each bad certificate with a fetches row saying why, and fetch nothing there', async () => {
      assert.deepEqual(web.requests.filter((r) => BAD.some((b) => r.hostHeader?.startsWith(b))), [], 'no HTTP request reached them');
      const rows = await query<{ host: string; error: string; kind: string }>(dataDir, "SELECT host, error, kind FROM fetches FINAL WHERE error LIKE 'tls:%'");
      const why = (name: string) => [...new Set(rows.filter((r) => r.host.startsWith(name)).map((r) => `${r.kind} ${r.error.replace(/ from .*/, '')}`))];
      assert.deepEqual(why('expired.'), ['robots tls: expired: the certificate has expired (CERT_HAS_EXPIRED)']);
      assert.deepEqual(why('self.'), ['robots tls: self-signed: the certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)']);
      assert.deepEqual(why('wrong.'), ['robots tls: name-mismatch: the certificate is not for this host name (ERR_TLS_CERT_ALTNAME_INVALID)']);
      const skipped = await query<{ url: string }>(dataDir, "SELECT url FROM skipped FINAL WHERE reason = 'robots-unreachable' ORDER BY url");
      assert.deepEqual(skipped.map((r) => new URL(r.url).hostname).sort(), [...BAD].sort());
    });

    it('should read the RSS feed a page names and the Atom feed a sitemap index lists, and fetch what they list', () => {
      const feedFetch = web.requests.find((r) => r.path === '/feed.rss');
      assert.ok(feedFetch, 'the feed named by <link rel=alternate> was fetched');
      const stories = new Set(web.requests.filter((r) => r.path.startsWith('/story/')).map((r) => Number(r.path.slice(7))));
      const listed = Array.from({ length: BACKLOG }, (_, k) => k);
      assert.deepEqual(listed.filter((k) => !stories.has(k)), [], 'every story the feed listed');
      const requested = new Set(web.requests.map(urlOf));
      assert.deepEqual([...web.tls!.atomListed, ...web.tls!.sitemapListed].filter((u) => !requested.has(u)), []);
    });

    it('should leave a skipped row for a URL normalize dropped, and say a repeated warning once', async () => {
      const rows = await query<{ url: string; source_url: string; url_count: string }>(dataDir, "SELECT url, source_url, url_count FROM skipped FINAL WHERE reason = 'excluded'");
      assert.ok(rows.some((r) => r.url === web.tls!.url('www.tls.test', '/b') && Number(r.url_count) >= 1), JSON.stringify(rows));
      assert.equal(run.stderr.split('\n').filter((l) => l.includes('sitemap-is-html')).length, 1, 'the host answering HTML for /sitemap.xml: one warning');
    });

    it('should end with a line counting what answered, what failed and why, and what was skipped and why', () => {
      const last = run.stdout.trim().split('\n').pop()!;
      assert.match(last, /^crawled \d+ pages \(\d+ answered: \d+ 2xx; 9 errors: 9 tls; \d+ skipped: (?=.*3 robots-unreachable)(?=.*\d+ excluded).*; 1 warnings said once: 1 sitemap-is-html\) in /);
    });

    it('should archive the HTTPS responses faithfully (warcio check)', { skip: 'skip' in tools ? tools.skip : false }, async () => {
      const captures = await readCaptures(tools as PythonTools, join(dataDir, 'warc'));
      const https = captures.filter((c) => c.uri.startsWith('https://www.tls.test:'));
      assert.ok(https.length >= 5, `${https.length} HTTPS captures`);
      assert.ok(https.every((c) => c.status === 200 || c.uri.endsWith('/sitemap.xml')));
    });
  });

  describe('through a proxy, recording certificate problems (--tls-verify record)', { concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'tls', firstAddress: '127.61.0.1' }, 'crawl-proxy-');
    let web: SyntheticWeb;
    let proxy: TestProxy;
    let dataDir: string;
    let run: CliRun;

    before(async () => {
      ({ web, dataDir } = t);
      // Only the proxy knows the names; it refuses shop.tls.test.
      proxy = await startTestProxy({ names: Object.fromEntries(web.hosts.map((h) => [h.name, h.address])), refuse: ['shop.tls.test'] });
      run = await crawl(web, dataDir, ['--proxy', proxy.url, '--ca-file', web.tls!.caFile, '--tls-verify', 'record', '--no-sitemaps']);
    });
    after(() => proxy?.close());

    it('should tunnel https and forward http through the proxy, politely, robots.txt first', () => {
      assert.equal(run.code, 0, run.stderr);
      assert.ok(proxy.log.some((e) => e.method === 'CONNECT' && e.target.startsWith('www.tls.test:')));
      assert.ok(proxy.log.some((e) => e.method === 'GET' && e.target.startsWith('http://plain.tls.test:')));
      assertPolite(web, DELAY_MS);
      assertRobotsFirst(web.requests);
    });

    it('should fetch the hosts with bad certificates and fill tls_problem, empty for good ones', async () => {
      const rows = await query<{ host: string; tls_problem: string; status: string }>(dataDir,
        "SELECT host, any(tls_problem) AS tls_problem, min(status) AS status FROM fetches FINAL WHERE kind = 'page' GROUP BY host ORDER BY host");
      const problem = Object.fromEntries(rows.map((r) => [r.host.split(':')[0], `${r.status} ${r.tls_problem.split(':')[0]}`]));
      assert.deepEqual(problem, {
        'expired.tls.test': '200 expired', 'self.tls.test': '200 self-signed', 'wrong.tls.test': '200 name-mismatch',
        'www.tls.test': '200 ', 'plain.tls.test': '200 ',
      });
      const requested = new Set(web.requests.map(urlOf));
      assert.deepEqual(web.tls!.badPages.filter((u) => !requested.has(u)), []);
    });

    it('should record what the proxy refused as proxy: errors', async () => {
      const rows = await query<{ error: string }>(dataDir, "SELECT error FROM fetches FINAL WHERE host LIKE 'shop.tls.test:%'");
      assert.ok(rows.length > 0 && rows.every((r) => /^proxy: the proxy http:\/\/127\.0\.0\.1:\d+ answered 403 .*destination_ip_prohibited/.test(r.error)), JSON.stringify(rows));
      assert.equal(web.requests.filter((r) => r.hostHeader?.startsWith('shop.')).length, 0);
      assert.match(run.stdout.trim().split('\n').pop()!, /\d+ errors: \d+ proxy;/);
    });
  });

  describe('a crawl that reaches nothing', { concurrency: 1 }, () => {
    it('should say why in its last line and exit 4', async () => {
      const dataDir = scratchDir('crawl-nothing-');
      const run = await runCli(['crawl', 'https://nothing.invalid/', '--data-dir', dataDir, '--default-delay-ms', '0', '--quiet']);
      assert.equal(run.code, 4, run.stderr);
      assert.match(run.stdout.trim().split('\n').pop()!,
        /^crawled 0 pages: every host's robots\.txt was unreachable \(nothing\.invalid: DNS did not resolve\) \(0 answered; 3 errors: 3 dns; 1 skipped: 1 robots-unreachable;/);
    });
  });
});
