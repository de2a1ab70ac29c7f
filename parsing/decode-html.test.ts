import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHtml, looksLikeHtml } from './decode-html.js';

// "café € “quoted”" in windows-1252: é = 0xE9, € = 0x80, “ = 0x93, ” = 0x94.
const CP1252_BYTES = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x20, 0x93, 0x71, 0x94]);
const CP1252_TEXT = 'café € “q”';

const html = (head: string, body: Buffer | string) =>
  Buffer.concat([Buffer.from(`<!DOCTYPE html><html><head>${head}</head><body>`, 'latin1'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : body, Buffer.from('</body></html>')]);

test('should decode windows-1252 bytes named by the Content-Type charset, including 0x80-0x9F', () => {
  const { html: text, charset } = decodeHtml(CP1252_BYTES, 'windows-1252');
  assert.equal(text, CP1252_TEXT);
  assert.equal(charset, 'windows-1252');
});

test('should treat iso-8859-1 and latin1 labels as windows-1252, as browsers do', () => {
  for (const label of ['iso-8859-1', 'ISO-8859-1', 'latin1', ' "iso-8859-1" ', 'us-ascii', 'text/html; charset=latin1']) {
    assert.deepEqual(decodeHtml(CP1252_BYTES, label), { html: CP1252_TEXT, charset: 'windows-1252' }, label);
  }
});

test('should find the charset in <meta charset> or http-equiv within the first 1024 bytes', () => {
  const viaCharset = decodeHtml(html('<meta charset="windows-1252">', CP1252_BYTES), '');
  assert.equal(viaCharset.charset, 'windows-1252');
  assert.ok(viaCharset.html.includes(CP1252_TEXT));
  const viaHttpEquiv = decodeHtml(
    html(`<meta http-equiv='Content-Type' content='text/html; charset="windows-1252"'>`, CP1252_BYTES), '');
  assert.equal(viaHttpEquiv.charset, 'windows-1252');
  assert.ok(viaHttpEquiv.html.includes(CP1252_TEXT));
  const unquoted = decodeHtml(html('<META HTTP-EQUIV=content-type CONTENT=text/html;charset=ISO-8859-1>', CP1252_BYTES), '');
  assert.equal(unquoted.charset, 'windows-1252');
});

test('should ignore meta charsets after the first 1024 bytes or inside comments', () => {
  const late = html(`<title>${'x'.repeat(1100)}</title><meta charset="windows-1252">`, 'naïve');
  assert.deepEqual(decodeHtml(late, ''), { html: late.toString('utf8'), charset: 'utf-8' });
  const commented = html('<!-- a > b <meta charset="koi8-r"> --><meta charset="utf-8">', 'naïve');
  assert.equal(decodeHtml(commented, '').charset, 'utf-8');
  const inAttribute = html('<link title="<meta charset=koi8-r>"><meta charset="utf-8">', 'naïve');
  assert.equal(decodeHtml(inAttribute, '').charset, 'utf-8');
});

test('should prefer the Content-Type charset over a meta declaration', () => {
  const body = html('<meta charset="windows-1252">', 'naïve — “ok”');
  assert.deepEqual(decodeHtml(body, 'utf-8'), { html: body.toString('utf8'), charset: 'utf-8' });
});

test('should let a byte-order mark win over the header and strip it', () => {
  const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>naïve €</p>')]);
  assert.deepEqual(decodeHtml(utf8, 'windows-1252'), { html: '<p>naïve €</p>', charset: 'utf-8' });
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>naïve €</p>', 'utf16le')]);
  assert.deepEqual(decodeHtml(le, ''), { html: '<p>naïve €</p>', charset: 'utf-16le' });
  const be = Buffer.from(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>€</p>', 'utf16le')]).swap16());
  assert.deepEqual(decodeHtml(be, 'iso-8859-1'), { html: '<p>€</p>', charset: 'utf-16be' });
});

test('should decode UTF-16 when the header says so, and read a meta "utf-16" as UTF-8', () => {
  assert.deepEqual(decodeHtml(Buffer.from('<p>ü</p>', 'utf16le'), 'utf-16'), { html: '<p>ü</p>', charset: 'utf-16le' });
  const body = html('<meta charset="utf-16">', 'ü');
  assert.deepEqual(decodeHtml(body, ''), { html: body.toString('utf8'), charset: 'utf-8' });
});

test('should decode other legacy encodings through ICU', () => {
  assert.deepEqual(decodeHtml(Buffer.from([0x93, 0xfa, 0x96, 0x7b]), 'Shift_JIS'), { html: '日本', charset: 'shift_jis' });
  assert.deepEqual(decodeHtml(Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]), 'koi8-r'), { html: 'Привет', charset: 'koi8-r' });
});

test('should fall back to UTF-8 without throwing on unknown or hostile labels', () => {
  const body = Buffer.from('<p>naïve</p>');
  for (const label of ['x-no-such-charset', 'replacement', 'iso-2022-kr', '";<script>', 'utf-8'.repeat(20), '\0']) {
    assert.deepEqual(decodeHtml(body, label), { html: '<p>naïve</p>', charset: 'utf-8' }, label);
  }
  const unknownMeta = html('<meta charset="x-bogus"><meta charset="windows-1252">', CP1252_BYTES);
  assert.equal(decodeHtml(unknownMeta, 'bogus').charset, 'windows-1252');
});

test('should decode undeclared legacy bytes as windows-1252 but keep UTF-8 cut mid-character', () => {
  assert.deepEqual(decodeHtml(CP1252_BYTES, ''), { html: CP1252_TEXT, charset: 'windows-1252' });
  const cut = Buffer.from('<p>naïve café €</p>').subarray(0, -6); // ends inside the € sequence
  const decoded = decodeHtml(cut, '');
  assert.equal(decoded.charset, 'utf-8');
  assert.ok(decoded.html.startsWith('<p>naïve café '));
  assert.deepEqual(decodeHtml(Buffer.alloc(0), ''), { html: '', charset: 'utf-8' });
  assert.deepEqual(decodeHtml(new Uint8Array([0x68, 0xc3, 0xa9]) as Buffer, ''), { html: 'hé', charset: 'utf-8' });
  assert.deepEqual(decodeHtml(undefined as unknown as Buffer, undefined as unknown as string), { html: '', charset: 'utf-8' });
});

test('should recognise HTML by Content-Type, case-insensitively and with parameters', () => {
  const body = Buffer.from('{"not": "html"}');
  assert.equal(looksLikeHtml('text/html; charset=utf-8', body), true);
  assert.equal(looksLikeHtml('TEXT/HTML', body), true);
  assert.equal(looksLikeHtml('application/xhtml+xml', body), true);
  assert.equal(looksLikeHtml('application/json', body), false);
});

test('should sniff HTML only when the type is missing or says nothing', () => {
  const page = Buffer.from('\uFEFF \n <!DOCTYPE html><html><body>x</body></html>');
  assert.equal(looksLikeHtml('', page), true);
  assert.equal(looksLikeHtml('application/octet-stream', Buffer.from('<html>')), true);
  assert.equal(looksLikeHtml('*/*', Buffer.from('<div class=x>')), true);
  assert.equal(looksLikeHtml('', Buffer.from('<!-- comment -->')), true);
  assert.equal(looksLikeHtml('', Buffer.from('<htmlx>')), false);
  assert.equal(looksLikeHtml('', Buffer.from('%PDF-1.7')), false);
  assert.equal(looksLikeHtml('', Buffer.from('<?xml version="1.0"?><rss>')), false);
  assert.equal(looksLikeHtml('image/png', Buffer.from('<html>')), false);
  assert.equal(looksLikeHtml('text/plain', Buffer.from('<html>')), false);
  assert.equal(looksLikeHtml('', Buffer.alloc(0)), false);
});
