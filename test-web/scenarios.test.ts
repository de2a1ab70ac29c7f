import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { request } from 'undici';
import { referenceCrawl } from './reference-crawl.js';
import { consecutiveAddresses, DEFAULT_BENCH, startSyntheticWeb } from './synthetic-web.js';

async function text(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, body: await res.body.text() };
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);

describe('bench scenario', () => {
  test('should serve pages of the requested size and link count, mostly same-host', async () => {
    const bench = { hosts: 6, pagesPerHost: 30, pageBytes: 10_000, linksPerPage: 20 };
    const web = await startSyntheticWeb({ scenario: 'bench', bench, firstAddress: '127.21.0.1' });
    try {
      assert.equal(web.hosts.length, 6);
      assert.equal(web.seeds.length, 6);
      assert.equal(web.expected.mustFetch.length, 6 * 30);
      const robots = await text(`${web.origin('bench-0')}/robots.txt`);
      assert.match(robots.body, /Allow: \//);
      for (const url of web.expected.mustFetch.slice(0, 40)) {
        const page = await text(url);
        assert.equal(page.status, 200);
        assert.equal(Buffer.byteLength(page.body), bench.pageBytes);
        assert.match(page.body, /<title>Bench host \d+ page \d+<\/title>/);
        const links = hrefs(page.body);
        assert.equal(links.length, bench.linksPerPage);
        const cross = links.filter((h) => h.startsWith('http://'));
        assert.equal(cross.length, 2);
        assert.ok(cross.every((h) => !h.startsWith(new URL(url).origin)));
      }
      assert.equal((await text(`${web.origin('bench-0')}/p/30`)).status, 404);
    } finally {
      await web.close();
    }
  });

  test('should make every page reachable within the depth limit and render deterministically', async () => {
    const bench = { hosts: 3, pagesPerHost: 40, pageBytes: 4000, linksPerPage: 12 };
    const web = await startSyntheticWeb({ scenario: 'bench', bench, firstAddress: '127.22.0.1' });
    const first = await text(`${web.origin('bench-1')}/p/17`);
    try {
      const { fetched } = await referenceCrawl({ seeds: web.seeds });
      assert.deepEqual(web.expected.mustFetch.filter((u) => fetched.get(u) !== 200), []);
    } finally {
      await web.close();
    }
    const again = await startSyntheticWeb({ scenario: 'bench', bench, firstAddress: '127.22.0.1', port: web.port });
    try {
      assert.equal((await text(`${again.origin('bench-1')}/p/17`)).body, first.body);
    } finally {
      await again.close();
    }
  });

  test('should start the default 200-host bench web', async () => {
    const web = await startSyntheticWeb({ scenario: 'bench', log: false });
    try {
      assert.equal(web.hosts.length, DEFAULT_BENCH.hosts);
      const last = web.hosts[web.hosts.length - 1];
      const page = await text(`${last.origin}/p/49`);
      assert.equal(page.status, 200);
      assert.ok(Math.abs(Buffer.byteLength(page.body) - 18 * 1024) < 64);
      assert.equal(web.requests.length, 0, 'log: false keeps no log');
    } finally {
      await web.close();
    }
  });
});

describe('demo scenario', () => {
  test('should be a small friendly web: 4 hosts, about 12 pages each, one Disallow, one near-duplicate pair', async () => {
    const web = await startSyntheticWeb({ scenario: 'demo', firstAddress: '127.32.0.1' });
    try {
      assert.deepEqual(web.hosts.map((h) => h.name), ['home', 'blog', 'docs', 'shop']);
      assert.equal(web.seeds.length, 1);
      const { fetched } = await referenceCrawl({ seeds: web.seeds });
      assert.deepEqual(web.expected.mustFetch.filter((u) => fetched.get(u) !== 200), []);
      assert.deepEqual(web.expected.mustNotFetch, [`${web.origin('shop')}/checkout/cart`]);
      assert.ok(!fetched.has(web.expected.mustNotFetch[0]));
      for (const h of web.hosts) {
        const n = web.expected.mustFetch.filter((u) => u.startsWith(`${h.origin}/`)).length;
        assert.ok(n >= 12 && n <= 15, `${h.name} has ${n} pages`);
      }
      assert.deepEqual(web.expected.trapOrigins, []);
      const [[a, b]] = web.expected.nearDuplicates;
      const [pa, pb] = [(await text(a)).body, (await text(b)).body];
      assert.notEqual(pa, pb);
      assert.equal(pa.replace(/Updated at [^<]*/, ''), pb.replace(/Updated at [^<]*/, ''));
    } finally {
      await web.close();
    }
  });
});

describe('consecutiveAddresses', () => {
  test('should skip .0 and .255 and refuse addresses outside 127.0.0.0/8', () => {
    assert.deepEqual(consecutiveAddresses('127.1.0.253', 4), ['127.1.0.253', '127.1.0.254', '127.1.1.1', '127.1.1.2']);
    assert.throws(() => consecutiveAddresses('10.0.0.1', 1), /127\.0\.0\.0\/8/);
  });
});
