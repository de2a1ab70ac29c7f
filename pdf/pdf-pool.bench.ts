import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { PdfPool } from './pdf-pool.js';
import { textPdf } from './testing/test-pdfs.js';

/** PDFs per second through the pool: 5-page text documents of 40 lines and 3 links a page. */
export async function benchPdf(threads: number, docs = 200): Promise<{ threads: number; docsPerSecond: number; pdfBytes: number; loadAverage: number }> {
  const pdf = textPdf(Array.from({ length: 5 }, (_, p) => ({
    lines: Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l}: some words of a report, numbers 12.5 and 13.75.`),
    links: [`https://site.test/p${p}/a`, `https://site.test/p${p}/b`, `/p${p}/rel`],
  })));
  const pool = new PdfPool({ threads });
  try {
    await Promise.all(Array.from({ length: threads }, () => pool.extract(pdf, 'https://site.test/r.pdf'))); // start-up
    const start = performance.now();
    const results = await Promise.all(Array.from({ length: docs }, () => pool.extract(pdf, 'https://site.test/r.pdf')));
    const seconds = (performance.now() - start) / 1000;
    if (results.some((r) => r.error || r.links.length !== 15)) throw new Error('bench: an extraction failed');
    return { threads, docsPerSecond: Math.round(docs / seconds), pdfBytes: pdf.length, loadAverage: Math.round(loadavg()[0] * 10) / 10 };
  } finally {
    await pool.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const t of [1, 2]) console.log(await benchPdf(t));
}
