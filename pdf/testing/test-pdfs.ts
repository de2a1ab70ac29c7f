// Builds PDFs for the tests from PDF source text, so that no binary PDF is committed: well-formed ones
// with text, titles and link annotations, and hostile ones (encrypted, malformed, page-tree bombs,
// deep nesting, streams that inflate to gigabytes).
import { deflateSync } from 'node:zlib';

export type PdfObject = string | Buffer;

/** Serializes objects 1..n with a correct cross-reference table; object 1 is the catalog. */
export function assemblePdf(objects: PdfObject[], trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n')]);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra} >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

export function stream(dict: string, data: Buffer | string): Buffer {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${bytes.length} >>\nstream\n`, 'latin1'), bytes, Buffer.from('\nendstream', 'latin1')]);
}

/** A PDF text string: UTF-16BE with a byte-order mark, so any character survives. */
export function pdfText(s: string): string {
  const utf16 = Buffer.from(s, 'utf16le').swap16();
  return `<FEFF${utf16.toString('hex')}>`;
}

/** A literal string for a content stream shown with a WinAnsi font. */
function winAnsi(s: string): string {
  return '(' + s.replace(/[\\()]/g, (c) => '\\' + c) + ')';
}

export interface PageSpec {
  lines: string[];
  links?: string[];
}

export interface PdfOptions {
  title?: string;
  /** Entries added to the catalog and the Info dictionary. */
  catalogExtra?: string;
  infoExtra?: string;
  /** Objects numbered from 5 on, for the extras to refer to. */
  extra?: PdfObject[];
}

/** A document of Helvetica text pages, each with link annotations. */
export function textPdf(pages: PageSpec[], opts: PdfOptions = {}): Buffer {
  const objects: PdfObject[] = [];
  const add = (o: PdfObject) => objects.push(o);
  add(`<< /Type /Catalog /Pages 2 0 R ${opts.catalogExtra ?? ''} >>`);
  add(''); // the page tree, filled in below
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add(`<< ${opts.title === undefined ? '' : `/Title ${pdfText(opts.title)}`} ${opts.infoExtra ?? ''} >>`);
  for (const o of opts.extra ?? []) add(o);
  const kids: number[] = [];
  for (const page of pages) {
    const content = ['BT /F1 12 Tf 50 750 Td 14 TL', ...page.lines.map((l) => `${winAnsi(l)} Tj T*`), 'ET'].join('\n');
    add(stream('', Buffer.from(content, 'latin1')));
    const contentRef = objects.length;
    const annots = (page.links ?? []).map((uri, i) => {
      add(`<< /Type /Annot /Subtype /Link /Rect [50 ${700 - i * 20} 200 ${715 - i * 20}] /Border [0 0 0] /A << /S /URI /URI ${winAnsi(uri)} >> >>`);
      return `${objects.length} 0 R`;
    });
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentRef} 0 R /Annots [${annots.join(' ')}] >>`);
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return assemblePdf(objects, '/Info 4 0 R');
}

/** A document protected by a user password that the empty password does not open. */
export function encryptedPdf(): Buffer {
  const base = textPdf([{ lines: ['secret'] }]).toString('latin1');
  const hex = (byte: string) => byte.repeat(32);
  const encrypt = `/Encrypt << /Filter /Standard /V 1 /R 2 /O <${hex('4f')}> /U <${hex('55')}> /P -4 >> /ID [<${hex('01').slice(0, 32)}> <${hex('01').slice(0, 32)}>]`;
  return Buffer.from(base.replace('/Info 4 0 R', `/Info 4 0 R ${encrypt}`), 'latin1');
}

/**
 * A page tree that declares a billion pages and contains itself: a reader that trusts /Count or
 * follows /Kids blindly never ends.
 */
export function pageTreeBombPdf(): Buffer {
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 1000000000 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    stream('', 'BT /F1 12 Tf 50 750 Td (bomb page) Tj ET'),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** A document whose catalog holds arrays nested `depth` deep. */
export function deeplyNestedPdf(depth: number): Buffer {
  return textPdf([{ lines: ['nested'] }], { catalogExtra: `/Deep ${'['.repeat(depth)}${']'.repeat(depth)}` });
}

/**
 * A document whose XMP metadata stream inflates to `inflatedBytes` of spaces: deflate over
 * run-length coding (128 copies per 2 bytes), so a few KB of file become gigabytes in memory.
 */
export function inflateBombPdf(inflatedBytes: number): Buffer {
  const runs = Buffer.alloc(Math.ceil(inflatedBytes / 128) * 2);
  for (let i = 0; i < runs.length; i += 2) (runs[i] = 129), (runs[i + 1] = 0x20);
  const compressed = deflateSync(runs, { level: 9 });
  return textPdf([{ lines: ['inflate bomb'] }], {
    catalogExtra: '/Metadata 5 0 R',
    extra: [stream('/Type /Metadata /Subtype /XML /Filter [/FlateDecode /RunLengthDecode]', compressed)],
  });
}
