// A rendered page must not send a single datagram: WebRTC's STUN, TURN and ICE checks and the
// browser's own DNS queries would go around the sinkhole proxy and the crawler's network policy.
// Watched twice: a UDP listener on loopback that the page names as its STUN and TURN server, and
// Chromium's own network log, which records every datagram the browser sends, DNS included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from './find-chromium.js';
import type { BrowserRequest, BrowserResponse } from './render-page.js';
import { Renderer } from './renderer.js';

const chromiumPath = findChromium();
const skip = chromiumPath ? false : 'no Chromium on PATH nor in $CRAWLSTREAM_CHROMIUM';
/** How long the page is held open for datagrams that should never come (one arriving ends it at once). */
const WATCH_MS = 2000;

let udp: Socket;
const datagrams: string[] = [];
let dir: string;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'crawlstream-udp-'));
  udp = createSocket('udp4');
  udp.on('message', (m, from) => datagrams.push(`${m.length} bytes from ${from.address}:${from.port}`));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
});

after(() => {
  if (skip) return;
  udp.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Holds the page's last script until a datagram arrives or WATCH_MS pass: the page stays open while it could send. */
function crawlerFetch(calls: BrowserRequest[]) {
  return async (req: BrowserRequest): Promise<BrowserResponse> => {
    calls.push(req);
    if (!req.url.endsWith('/watch.js')) return { refused: 'not this test\'s' };
    const until = performance.now() + WATCH_MS;
    while (datagrams.length === 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
    return { status: 200, headers: { 'content-type': 'text/javascript' }, body: Buffer.from('document.body.dataset.watched = "1";') };
  };
}

interface NetLog {
  constants: { logEventTypes: Record<string, number> };
  events: { type: number; params?: { address?: string; byte_count?: number } }[];
}

test('should send no UDP from a page that tries STUN, TURN, ICE candidates and DNS, and record the attempts', { skip, timeout: 90_000 }, async () => {
  const netLog = join(dir, 'netlog.json');
  const renderer = new Renderer({ chromiumPath, timeoutMs: 20_000, netLogPath: netLog, warn: () => {} });
  const port = udp.address().port;
  const page = `<!doctype html><title>rtc</title>
    <link rel="dns-prefetch" href="//dns-prefetch-probe.crawlstream.test"><link rel="preconnect" href="http://preconnect-probe.crawlstream.test/">
    <p id="out">start</p><script>
    const out = document.getElementById('out');
    const servers = [{ urls: 'stun:127.0.0.1:${port}' }, { urls: ['turn:127.0.0.1:${port}?transport=udp'], username: 'u', credential: 'p' },
      { urls: 'stun:stun-probe.crawlstream.test:${port}' }];
    const attempt = (name, make) => {
      try {
        const pc = make();
        pc.createDataChannel('x');
        pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {});
        out.textContent += ' ' + name + ':made';
      } catch (e) { out.textContent += ' ' + name + ':' + e.name; }
    };
    attempt('plain', () => new RTCPeerConnection({ iceServers: servers }));
    attempt('webkit', () => new webkitRTCPeerConnection({ iceServers: servers }));
    attempt('no-servers', () => new RTCPeerConnection());
    // A fresh window's own constructor, taken from a same-origin frame made by script.
    const frame = document.createElement('iframe');
    document.body.appendChild(frame);
    attempt('frame', () => new frame.contentWindow.RTCPeerConnection({ iceServers: servers }));
    fetch('http://fetch-probe.crawlstream.test/').catch(() => {});
    </script><script src="/watch.js"></script>`;
  const calls: BrowserRequest[] = [];
  let result;
  try {
    result = await renderer.render('http://127.0.0.1:9/rtc', page, crawlerFetch(calls));
  } finally {
    await renderer.close();
  }
  assert.equal(result.error, '', result.error);
  assert.ok(calls.some((c) => c.url.endsWith('/watch.js')), 'the page was held open for the watch');
  assert.deepEqual(datagrams, [], 'no datagram reached the STUN/TURN listener on loopback');
  assert.match(result.text ?? '', /plain:SecurityError webkit:SecurityError no-servers:SecurityError/);

  const log = JSON.parse(readFileSync(netLog, 'utf8')) as NetLog;
  const type = log.constants.logEventTypes;
  const sent = log.events.filter((e) => e.type === type.UDP_BYTES_SENT).map((e) => `${e.params?.byte_count} bytes to ${e.params?.address ?? 'a connected socket'}`);
  const dns = log.events.filter((e) => e.type === type.UDP_CONNECT && /:53$/.test(e.params?.address ?? '')).map((e) => e.params?.address);
  assert.deepEqual(sent, [], 'the browser sent no datagram at all');
  assert.deepEqual(dns, [], 'the browser asked no DNS server anything');

  const webrtc = result.subrequests.filter((s) => s.resourceType === 'webrtc');
  assert.ok(webrtc.length >= 4, JSON.stringify(result.subrequests));
  assert.ok(webrtc.every((s) => s.outcome === 'blocked: webrtc'));
  assert.ok(webrtc.some((s) => s.url === `stun:127.0.0.1:${port}`));
  assert.ok(webrtc.some((s) => s.url.startsWith(`turn:127.0.0.1:${port}`)));
  assert.ok(result.blocked.webrtc >= 4);
});
