// Response bodies and handlers for the hostile endpoints. Big bodies are streamed or built once and cached,
// never rendered per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { Rng } from './text.js';

export const BIG_BODY_BYTES = 20 * 1024 * 1024;
export const TRICKLE_INTERVAL_MS = 500;
export const WINDOWS_1252_TITLE = 'Café prices in € (windows-1252)';

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

/** A valid 32×32 RGB gradient PNG. */
export function pngImage(): Buffer {
  const size = 32;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) raw.set([x * 8, y * 8, 128], y * (1 + size * 3) + 1 + x * 3);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export function randomBytes(seed: string, length: number): Buffer {
  const rng = new Rng(seed);
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = rng.int(256);
  return out;
}

/** 200 and a body that never ends: one byte every TRICKLE_INTERVAL_MS until the client goes away. */
export function trickle(_req: IncomingMessage, res: ServerResponse): void {
  const text = '<!doctype html><html><head><title>Trickle</title></head><body><p>' + 'slow '.repeat(40);
  let i = 0;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  const drip = (): void => {
    if (res.destroyed) return clearInterval(timer);
    res.write(text[i++ % text.length]);
  };
  const timer = setInterval(drip, TRICKLE_INTERVAL_MS);
  drip();
  res.on('close', () => clearInterval(timer));
}

/** A `length`-byte HTML page streamed with backpressure, so a slow reader costs no memory. */
export function bigBody(length: number): (req: IncomingMessage, res: ServerResponse) => void {
  const filler = Buffer.alloc(64 * 1024, 'a');
  filler.write('<!doctype html><html><head><title>Twenty megabytes</title></head><body><p>');
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': length });
    if (req.method === 'HEAD') return void res.end();
    let sent = 0;
    const pump = (): void => {
      while (sent < length && !res.destroyed) {
        const n = Math.min(filler.length, length - sent);
        sent += n;
        if (sent >= length) return void res.end(filler.subarray(0, n));
        if (!res.write(filler.subarray(0, n))) return void res.once('drain', pump);
      }
    };
    pump();
  };
}

/** Encodes text as windows-1252 (Latin-1 plus the euro sign, which is enough here). */
export function windows1252(text: string): Buffer {
  return Buffer.from(Array.from(text, (ch) => (ch === '€' ? 0x80 : ch.charCodeAt(0) <= 0xff ? ch.charCodeAt(0) : 0x3f)));
}

export function windows1252Page(): Buffer {
  return windows1252(
    [
      '<!doctype html>',
      '<html><head><meta charset="windows-1252">',
      `<title>${WINDOWS_1252_TITLE}</title></head>`,
      `<body><h1>${WINDOWS_1252_TITLE}</h1>`,
      '<p>Crème brûlée costs 5 € and a café au lait 3 €.</p>',
      '<p><a href="/charset/next">Next page (UTF-8)</a></p>',
      '</body></html>',
      '',
    ].join('\n'),
  );
}

/** Tag soup with links an HTML5 parser recovers, and one inside a comment that it must not see. */
export const MALFORMED_HTML = [
  '<html><HEAD><title>Malformed markup</title>',
  '<body bgcolor=white>',
  '<p>Unclosed <b>bold <i>and italic</b> text</i>',
  '<div><p>A paragraph in a div that never closes',
  '<a href=/malformed/target-1>unquoted href</a>',
  "<A HREF='/malformed/target-2'>upper-case tag, single quotes</A>",
  '<table><tr><td><a href="malformed/target-3">relative link in an unclosed cell</td></tr>',
  '<!-- <a href="/malformed/in-comment">commented out</a> -->',
  '<p>Stray </span> closing tags </div></div>',
  '<li>an orphan list item',
  '',
].join('\n');

/** A same-host URL of exactly 10,000 characters. */
export function longBadUrl(origin: string): string {
  const prefix = `${origin}/bad-links/`;
  return prefix + 'x'.repeat(10_000 - prefix.length);
}

export const BAD_HREFS = (origin: string): string[] => [
  'javascript:alert(1)',
  'mailto:someone@example.invalid',
  'http://[::1',
  'http://[zz::1]/',
  'data:text/html,%3Ch1%3Ehi%3C/h1%3E',
    longBadUrl(origin),
  '/bad-links/nul\u0000inside',
  '/bad-links/tab\tinside',
  '/bad-links/with spaces inside',
  '  /bad-links/ok  ',
  '/bad-links/ok',
];

export function badLinksHtml(origin: string): string {
  return [
    '<!doctype html><html><head><meta charset="utf-8"><title>Bad links</title></head><body><h1>Bad links</h1><ul>',
    ...BAD_HREFS(origin).map((h, i) => `<li><a href="${h.replace(/"/g, '&quot;')}">bad link ${i + 1}</a></li>`),
    '</ul></body></html>',
    '',
  ].join('\n');
}

