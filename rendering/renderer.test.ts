// test-plan: unit ~30s
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { startHttpServer, type TestServer } from '../fetching/testing/test-servers.js';
import { findChromium } from './find-chromium.js';
import type { BrowserRequest, BrowserResponse } from './render-page.js';
import { Renderer } from './renderer.js';

const chromiumPath = findChromium();
const skip = chromiumPath ? false : 'no Chromium on PATH nor in $CRAWLSTREAM_CHROMIUM';

// Everything a test page loads comes from `site` (127.0.0.1); `other` (127.0.0.2) is the cross-origin
// host the callback refuses. Both log every request they get, with the header the callback adds.
let site: TestServer;
let other: TestServer;
const siteLog: string[] = [];
const otherLog: string[] = [];
const SCRIPTS: Record<string, string> = {
  '/app.js': `document.querySelector('#nav').innerHTML = '<a href="/from-script-file">f</a>';`,
};

function handler(log: string[]) {
  return (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    log.push(`${req.method} ${req.url} ${req.headers['x-fetched-by'] ?? 'BROWSER'}`);
    const script = SCRIPTS[req.url ?? ''];
    res.setHeader('content-type', script ? 'text/javascript' : 'text/plain');
    res.end(script ?? 'ok');
  };
}

/** The crawler's side: refuses other origins, fetches the rest itself on a fresh connection. */
function crawlerFetch(calls: BrowserRequest[], opts: { hang?: string } = {}) {
  return (req: BrowserRequest): Promise<BrowserResponse> => {
    calls.push(req);
    if (!req.url.startsWith(site.url('/'))) return Promise.resolve({ refused: 'cross-origin: not this site' });
    if (opts.hang && req.url.endsWith(opts.hang)) return new Promise(() => {});
    return new Promise((resolve, reject) => {
      const r = request(req.url, { method: req.method, agent: false, headers: { 'x-fetched-by': 'crawler' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      });
      r.on('error', reject);
      r.end();
    });
  };
}

/** The servers saw exactly the requests the callback made, on one connection each, and nothing else. */
function assertOnlyCrawlerTraffic(calls: BrowserRequest[]) {
  const fetched = calls.filter((c) => c.url.startsWith(site.url('/')) && !c.url.endsWith('/hang'));
  assert.deepEqual(siteLog, fetched.map((c) => `${c.method} ${new URL(c.url).pathname} crawler`));
  assert.equal(site.connections, fetched.length, 'no connection the callback did not open (preconnects, downloads…)');
  assert.deepEqual(otherLog, []);
  assert.equal(other.connections, 0);
}

let renderer: Renderer;
const logLines: string[] = [];

before(async () => {
  if (skip) return;
  site = await startHttpServer('127.0.0.1', handler(siteLog));
  other = await startHttpServer('127.0.0.2', handler(otherLog));
  renderer = new Renderer({ chromiumPath, concurrency: 2, timeoutMs: 30_000, warn: (l) => logLines.push(l) });
});

after(async () => {
  if (skip) return;
  await renderer.close();
  await site.close();
  await other.close();
});

function reset() {
  siteLog.length = 0;
  otherLog.length = 0;
  site.connections = 0;
  other.connections = 0;
}

test('should return links written by an inline script, serving the page from the crawler\'s copy', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const html = `<!doctype html><title>t</title><p>static</p><script>
    document.write('<a href="/written">w</a>');
    document.addEventListener('DOMContentLoaded', () => document.body.insertAdjacentHTML('beforeend', '<a href="later?x=1">l</a>'));
  </script>`;
  const r = await renderer.render(site.url('/dir/page'), html, crawlerFetch(calls));
  assert.equal(r.error, '');
  assert.deepEqual(r.links, [site.url('/written'), site.url('/dir/later?x=1')]);
  assert.match(r.html, /^<!DOCTYPE html><html>.*<a href="\/written">w<\/a>/s);
  assert.match(r.text ?? '', /static/);
  assert.deepEqual(r.subrequests, [{ url: site.url('/dir/page'), resourceType: 'document', outcome: 'served: the crawler\'s copy' }]);
  assert.deepEqual(calls, []);
  assertOnlyCrawlerTraffic(calls);
});

test('should load a script file through the callback and return the links it writes', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const r = await renderer.render(site.url('/app'), '<div id="nav"></div><script src="/app.js"></script>', crawlerFetch(calls));
  assert.equal(r.error, '');
  assert.deepEqual(r.links, [site.url('/from-script-file')]);
  assert.deepEqual(calls, [{ url: site.url('/app.js'), method: 'GET', resourceType: 'script', isNavigation: false }]);
  assert.deepEqual(r.subrequests.map((s) => s.outcome), ['served: the crawler\'s copy', 'fetched: 200']);
  assertOnlyCrawlerTraffic(calls);
});

test('should block images without asking the callback, and let the callback refuse a cross-origin script', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const crossOrigin = other.url('/lib.js');
  const html = `<img src="/logo.png"><link rel="preconnect" href="${other.url('/')}">
    <script src="${crossOrigin}"></script><a href="/kept">k</a>`;
  const r = await renderer.render(site.url('/mixed'), html, crawlerFetch(calls));
  assert.equal(r.error, '');
  assert.deepEqual(r.links, [site.url('/kept')]);
  assert.deepEqual(calls.map((c) => c.url), [crossOrigin]);
  assert.equal(r.blocked.image, 1);
  assert.deepEqual(r.subrequests.filter((s) => s.resourceType !== 'document').map((s) => [s.url, s.outcome]).sort(), [
    [site.url('/logo.png'), 'blocked: image'],
    [crossOrigin, 'refused: cross-origin: not this site'],
  ]);
  assertOnlyCrawlerTraffic(calls);
});

test('should block and record a popup and a download, keeping the page', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const html = `<a href="/stays">s</a><script>
    window.open('/popup-target');
    const a = document.createElement('a'); a.href = '/file.bin'; a.download = 'f.bin'; document.body.append(a); a.click();
  </script>`;
  const r = await renderer.render(site.url('/opener'), html, crawlerFetch(calls));
  assert.equal(r.error, '');
  assert.deepEqual(r.blocked, { popup: 1, download: 1 });
  assert.deepEqual(r.subrequests.slice(1).map((s) => [s.url, s.outcome]), [
    [site.url('/popup-target'), 'blocked: popup'],
    [site.url('/file.bin'), 'blocked: download'],
  ]);
  assert.deepEqual(calls, []);
  assertOnlyCrawlerTraffic(calls);
});

test('should block and record a navigation to another document, keeping the page', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const r = await renderer.render(site.url('/leaver'), '<a href="/stays">s</a><script>location.href = "/elsewhere";</script>', crawlerFetch(calls));
  assert.equal(r.error, '');
  assert.deepEqual(r.links, [site.url('/stays')], 'the page was not replaced');
  assert.deepEqual(r.navigations, [site.url('/elsewhere')]);
  assert.deepEqual(r.blocked, { navigation: 1 });
  assert.deepEqual(r.subrequests.at(-1), { url: site.url('/elsewhere'), resourceType: 'document', outcome: 'blocked: navigation' });
  assert.deepEqual(calls, []);
  assertOnlyCrawlerTraffic(calls);
});

test('should block and record websockets, workers, POST requests and subframes', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const attempts = ["new SharedWorker('/shared.js')", "navigator.serviceWorker.register('/sw.js')",
    `new WebSocket('${site.url('/ws').replace('http', 'ws')}')`, "fetch('/api', { method: 'POST', body: 'x' })",
    "navigator.sendBeacon('/beacon', 'x')"].map((js) => `try { ${js} } catch {}`).join('\n');
  const html = `<script>${attempts}</script><iframe src="/frame"></iframe>`;
  const r = await renderer.render(site.url('/misc'), html, crawlerFetch(calls));
  assert.equal(r.error, '');
  const blocked = Object.fromEntries(r.subrequests.slice(1).map((s) => [new URL(s.url).pathname, s.outcome]));
  assert.deepEqual(blocked, {
    '/shared.js': 'blocked: shared-worker',
    '/sw.js': 'blocked: service-worker',
    '/ws': 'blocked: websocket',
    '/api': 'blocked: method POST',
    '/beacon': 'blocked: method POST',
    '/frame': 'blocked: subframe',
  });
  assert.deepEqual(calls, []);
  assertOnlyCrawlerTraffic(calls);
});

test('should cut off a page that loops forever and keep rendering afterwards', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const started = performance.now();
  const r = await renderer.render(site.url('/loop'), '<a href="/before">b</a><script>for (;;) {}</script>', crawlerFetch(calls), { timeoutMs: 3000 });
  assert.match(r.error, /^timeout: the page's scripts did not yield/);
  assert.equal(r.html, '');
  assert.ok(performance.now() - started < 3000 + 10_000, 'ended by the bound, plus the context close');
  const next = await renderer.render(site.url('/after'), '<a href="/next">n</a>', crawlerFetch(calls));
  assert.equal(next.error, '');
  assert.deepEqual(next.links, [site.url('/next')]);
});

test('should return the DOM of a page whose requests never settle, and say so', { skip }, async () => {
  reset();
  const calls: BrowserRequest[] = [];
  const html = `<div id="d"></div><script>addEventListener('load', () => {
    document.getElementById('d').innerHTML = '<a href="/after-load">a</a>'; fetch('/hang'); })</script>`;
  // A settle window wider than the default 100 ms: on a loaded machine the request the load handler
  // starts reached the crawler more than 100 ms after the load event (a fresh-clone run), and the
  // page counted as settled before it began.
  const patient = new Renderer({ chromiumPath, settleMs: 1500, warn: () => {} });
  let r;
  try {
    r = await patient.render(site.url('/busy'), html, crawlerFetch(calls, { hang: '/hang' }), { timeoutMs: 6000 });
  } finally {
    await patient.close();
  }
  assert.match(r.error, /^unsettled: /);
  assert.deepEqual(r.links, [site.url('/after-load')]);
  assert.deepEqual(r.subrequests.at(-1), { url: site.url('/hang'), resourceType: 'fetch', outcome: 'unfinished: the render ended before the crawler answered' });
  assertOnlyCrawlerTraffic(calls);
});

test('should render several pages at once, each with its own result', { skip }, async () => {
  const pages = Array.from({ length: 4 }, (_, i) => renderer.render(site.url(`/p${i}`), `<script>document.write('<a href="/l${i}">x</a>')</script>`, crawlerFetch([])));
  const results = await Promise.all(pages);
  assert.deepEqual(results.map((r) => r.links), [0, 1, 2, 3].map((i) => [site.url(`/l${i}`)]));
});

test('should cut a rendered DOM over maxHtmlBytes and say so', { skip }, async () => {
  const small = new Renderer({ chromiumPath, maxHtmlBytes: 2000, warn: () => {} });
  try {
    const r = await small.render(site.url('/big'), `<script>document.write('<p>${'x'.repeat(100)}</p>'.repeat(100))</script>`, crawlerFetch([]));
    assert.match(r.error, /^too-large: /);
    assert.ok(Buffer.byteLength(r.html) <= 2000);
  } finally {
    await small.close();
  }
});

test('should relaunch a browser that crashed', { skip }, async () => {
  const own = new Renderer({ chromiumPath, warn: () => {} });
  try {
    const others = new Set(childChromiums()); // the shared renderer's browser is left alone
    assert.equal((await own.render(site.url('/a'), '<a href="/1">1</a>', crawlerFetch([]))).error, '');
    const mine = childChromiums().filter((pid) => !others.has(pid));
    assert.equal(mine.length, 1);
    process.kill(mine[0], 'SIGKILL');
    while (own.stats.browserCrashes === 0) await new Promise((r) => setTimeout(r, 10));
    const r = await own.render(site.url('/b'), '<a href="/2">2</a>', crawlerFetch([]));
    assert.equal(r.error, '');
    assert.deepEqual(r.links, [site.url('/2')]);
    assert.equal(own.stats.browserLaunches, 2);
  } finally {
    await own.close();
  }
});

test('should answer browser-unavailable when Chromium cannot be started', async () => {
  const broken = new Renderer({ chromiumPath: '/nonexistent/chromium', warn: () => {} });
  const r = await broken.render('http://site.test/', '<p>x</p>', async () => ({ refused: 'unused' }));
  assert.match(r.error, /^browser-unavailable: /);
  await broken.close();
});

/** Chromium processes started by this test process (Playwright spawns the executable directly). */
function childChromiums(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim().split(/\s+/)).filter(([, comm]) => /chrom/.test(comm ?? '')).map(([pid]) => Number(pid));
}
