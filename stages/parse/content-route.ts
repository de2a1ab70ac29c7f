// What parse does with a body that is not HTML. Routed by Content-Type, and by sniffing the first
// bytes when the type is missing, generic or wrong (a PDF served as octet-stream, HTML served as
// text/plain): PDFs go to a worker pool that extracts their title, text and link annotations within
// a time and memory bound; plain text is kept as text; anything else is recorded (status, type,
// digest) and not parsed.
import { createHash } from 'node:crypto';
import type { BodyAnalysis } from '../../parsing/analyze-body.js';
import { decompressBody } from '../../fetching/body-codec.js';
import { simhash64 } from '../../parsing/simhash.js';
import { cutUtf8, MAX_TEXT_BYTES } from '../../parsing/text-digest.js';
import type { PdfPool } from '../../pdf/pdf-pool.js';
import { SNIFF_BYTES, sniffContentType, type ContentKind } from '../../pdf/sniff-content-type.js';
import type { FetchResult } from '../../schemas/records.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

const EMPTY: BodyAnalysis = {
  kind: 'other', error: '', truncated: false, title: '', canonical: '', lang: '', metaNoindex: false, metaNofollow: false,
  textLength: 0, text: '', contentHash: '', simhash: new Uint8Array(8), links: [],
};

/** The analysis of a non-HTML body, or undefined when the body is HTML after all (parse it as such). */
export async function analyzeOther(r: FetchResult, maxBodyBytes: number, pdfPool: PdfPool | undefined): Promise<BodyAnalysis | undefined> {
  if (HTML_TYPES.has(r.content_type)) return undefined;
  let body: Buffer;
  try {
    body = decompressBody(r.body_encoding, r.body, maxBodyBytes);
  } catch (err) {
    return { ...EMPTY, kind: 'unreadable', error: `stored-body: ${(err as Error).message}` };
  }
  const kind: ContentKind = sniffContentType(r.content_type || null, body.subarray(0, SNIFF_BYTES));
  const contentHash = createHash('sha1').update(body).digest('hex');
  if (kind === 'html') return undefined;
  if (kind === 'pdf') {
    if (!pdfPool) return { ...EMPTY, contentHash, error: 'pdf: this process extracts no PDFs' };
    const pdf = await pdfPool.extract(body, r.final_url);
    return {
      ...EMPTY, kind: 'pdf', contentHash, error: pdf.error ? `pdf-${pdf.error}` : '', title: pdf.title, text: pdf.text,
      textLength: pdf.text.length, truncated: pdf.textTruncated || pdf.pagesRead < pdf.pages,
      simhash: pdf.text ? simhash64(pdf.text) : EMPTY.simhash,
      links: pdf.links.map((url) => ({ url, anchor: '', nofollow: false })), linksCut: pdf.linksCut,
    };
  }
  if (kind === 'text') {
    const text = cutUtf8(body.toString('utf8').replace(/\s+/g, ' ').trim(), MAX_TEXT_BYTES);
    return { ...EMPTY, kind: 'text', contentHash, text, textLength: text.length, simhash: text ? simhash64(text) : EMPTY.simhash };
  }
  return { ...EMPTY, contentHash };
}
