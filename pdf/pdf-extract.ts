// Reads a PDF with Mozilla's pdf.js inside a worker thread of the PDF pool, and reports what it finds
// page by page, so that a pool that must stop the worker (time or memory bound) keeps what was read.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The legacy build carries the polyfills Node 20 needs (Promise.withResolvers, Uint8Array.fromBase64…);
// the modern build assumes Node 22+. pdf.js also needs DOMMatrix as it loads, which on Node comes from
// @napi-rs/canvas (prebuilt binaries): pdfjs-dist lists it as optional, this project as a dependency,
// because without it every extraction fails with "DOMMatrix is not defined".
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
// pdf.js runs its parser in this same thread (there is no nested worker in Node) and would import it
// on the first document; loading it now keeps that start-up out of the first PDF's time bound.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

export interface ExtractLimits {
  maxPages: number;
  /** The worker stops sending text once this much was sent; the pool cuts the exact bound. */
  maxTextBytes: number;
  maxLinks: number;
}

export type ExtractEvent =
  | { type: 'meta'; title: string; pages: number; warning?: string }
  | { type: 'page'; page: number; text: string; links: string[]; linksUnread?: boolean }
  | { type: 'page-error'; page: number; error: string };

const MAX_TITLE_CHARS = 1000;

export async function extractPdf(bytes: Uint8Array, url: string, limits: ExtractLimits, emit: (e: ExtractEvent) => void): Promise<void> {
  const task = pdfjs.getDocument({
    data: bytes,
    // Text and links only: nothing is rendered, no font is installed, no code from the file is compiled.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    // Predefined CMaps turn CJK character codes into text; they ship inside the package.
    cMapUrl: join(pdfjsRoot, 'cmaps') + '/',
    cMapPacked: true,
    standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + '/',
  });
  try {
    const doc = await task.promise;
    let title = '';
    let warning: string | undefined;
    try {
      title = await readTitle(doc);
    } catch (err) {
      warning = `metadata unreadable: ${errorMessage(err)}`;
    }
    emit({ type: 'meta', title, pages: doc.numPages, warning });
    let textBytes = 0;
    let linkCount = 0;
    const pages = Math.min(doc.numPages, limits.maxPages);
    for (let n = 1; n <= pages; n++) {
      try {
        const page = await doc.getPage(n);
        const text = textBytes < limits.maxTextBytes ? await pageText(page) : '';
        textBytes += Buffer.byteLength(text);
        // Past the cap a page's links are not read at all: the pool only learns that some may be lost.
        const linksUnread = linkCount >= limits.maxLinks;
        const links = linksUnread ? [] : await pageLinks(page, url);
        linkCount += links.length;
        page.cleanup();
        emit({ type: 'page', page: n, text, links, linksUnread });
      } catch (err) {
        emit({ type: 'page-error', page: n, error: errorMessage(err) });
      }
    }
  } finally {
    await task.destroy();
  }
}

async function readTitle(doc: Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>): Promise<string> {
  const { info, metadata } = await doc.getMetadata();
  // XMP metadata is what current tools keep up to date; the Info dictionary is the fallback.
  const xmp = metadata?.get('dc:title');
  const fromInfo = (info as { Title?: unknown } | undefined)?.Title;
  const title = typeof xmp === 'string' && xmp.trim() ? xmp : typeof fromInfo === 'string' ? fromInfo : '';
  return title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
}

async function pageText(page: { getTextContent(): Promise<{ items: unknown[] }> }): Promise<string> {
  const { items } = await page.getTextContent();
  let text = '';
  for (const item of items as { str?: string; hasEOL?: boolean }[]) {
    if (typeof item.str !== 'string') continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text.trim();
}

async function pageLinks(page: { getAnnotations(): Promise<unknown[]> }, base: string): Promise<string[]> {
  const links: string[] = [];
  for (const a of (await page.getAnnotations()) as { subtype?: string; url?: string; unsafeUrl?: string }[]) {
    if (a.subtype !== 'Link') continue;
    // unsafeUrl is the raw /URI, which may be relative to the document; url is pdf.js's absolute form.
    const raw = a.unsafeUrl ?? a.url;
    if (typeof raw !== 'string') continue;
    const resolved = absoluteHttpUrl(raw, base);
    if (resolved) links.push(resolved);
  }
  return links;
}

export function absoluteHttpUrl(raw: string, base: string): string | undefined {
  try {
    const u = new URL(raw.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function errorMessage(err: unknown): string {
  const e = err as { name?: string; message?: string } | undefined;
  return (e?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 300);
}

/** The `<kind>: detail` form of a document-level failure. */
export function classifyError(err: unknown): string {
  const name = (err as { name?: string } | undefined)?.name ?? '';
  const message = errorMessage(err);
  if (name === 'PasswordException') return `encrypted: ${message}`;
  if (/call stack/i.test(message)) return `malformed: nested too deeply (${message})`;
  if (/allocation failed|invalid array length|invalid typed array length|out of memory/i.test(message)) return `memory: ${message}`;
  if (name === 'InvalidPDFException' || name === 'FormatError' || name === 'UnknownErrorException') return `malformed: ${message}`;
  return `malformed: ${name ? name + ': ' : ''}${message}`;
}
