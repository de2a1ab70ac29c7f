// Politeness per server address: eight host names pinned with --resolve to one loopback address, a
// server that keeps each request open a while. Judged from the server's own log: never more than
// --max-in-flight-per-ip requests at once to the address, never two at once to one name.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { SHARED_NAMES, SHARED_PAGES, sharedName } from '../test-web/scenario-shared.js';
import { runCli } from './support/cli.js';
import { peakConcurrency } from './support/crawl-checks.js';

async function crawlShared(web: SyntheticWeb, extra: string[]) {
  const address = web.endpoints.address;
  const resolve = Array.from({ length: SHARED_NAMES }, (_, i) => ['--resolve', `${sharedName(i + 1)}=${address}`]).flat();
  const dataDir = mkdtempSync(join(tmpdir(), 'shared-'));
  return runCli(['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '0',
    '--no-sitemaps', '--partitions', '4', '--quiet', ...resolve, ...extra]);
}

describe('politeness per server address', () => {
  const webs: SyntheticWeb[] = [];
  after(async () => {
    for (const w of webs) await w.close();
  });

  for (const limit of [2, 4]) {
    it(`should never have more than ${limit} requests in flight to an address eight host names share`, async () => {
      const web = await startSyntheticWeb({ scenario: 'shared' });
      webs.push(web);
      const run = await crawlShared(web, limit === 2 ? [] : ['--max-in-flight-per-ip', String(limit)]);
      assert.equal(run.code, 0, run.stderr);
      const pages = web.requests.filter((r) => r.path !== '/robots.txt');
      assert.equal(pages.length, SHARED_NAMES * (SHARED_PAGES + 1), 'every page of every name was fetched');
      const peak = peakConcurrency(web.requests);
      assert.ok(peak <= limit, `${peak} requests in flight at once to one address`);
      // The limit is what holds them back: eight names with no delay would otherwise all run at once.
      assert.equal(peak, limit, `the crawl used the ${limit} places it had`);
      for (let i = 1; i <= SHARED_NAMES; i++) {
        const name = web.requests.filter((r) => r.hostHeader?.startsWith(`${sharedName(i)}:`));
        assert.equal(peakConcurrency(name), 1, `one request at a time to ${sharedName(i)}`);
        assert.equal([...name].sort((a, b) => a.startedAt - b.startedAt)[0].path, '/robots.txt', `robots.txt first on ${sharedName(i)}`);
      }
    });
  }
});
