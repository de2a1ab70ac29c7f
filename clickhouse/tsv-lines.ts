// The crawl's rows wait for their INSERT (up to 2 s) as TabSeparated bytes outside V8's heap.
//
// Why: whatever the sink holds that long outlives V8's young generation. Held as row objects (and
// the decoded records their strings came from), then as one string per row, a page's rows were
// ~23 KB promoted to the old generation, a quarter of all the main thread promoted, each byte
// copied twice by scavenges and then marked and swept. Bytes in a shared chunk cost the heap one
// small view per row instead.
import { tsvBytesLength, tsvFields, writeTsvBytes } from './tsv.js';

/** One row of a crawl table: its fields up to and with its src_offset, as UTF-8, no newline. */
export interface Line {
  table: string;
  bytes: Buffer;
}

const CHUNK_BYTES = 1024 * 1024;

/** Lines written one after another into 1 MB chunks; a chunk is freed once no line in it is held. */
export class LineArena {
  private chunk = Buffer.alloc(0);
  private at = 0;

  /** `fields` joined by tabs; a field given as bytes (UTF-8, not yet escaped) is escaped as it is copied. */
  add(table: string, fields: readonly (string | Uint8Array)[]): Line {
    if (!fields.some((f) => typeof f !== 'string')) return this.addText(table, (fields as readonly string[]).join('\t'));
    const sizes = fields.map((f) => (typeof f === 'string' ? Buffer.byteLength(f, 'utf8') : tsvBytesLength(f)));
    const start = this.room(sizes.reduce((a, b) => a + b, fields.length - 1));
    let at = start;
    for (let i = 0; i < fields.length; i++) {
      if (i > 0) this.chunk[at++] = 0x09;
      const f = fields[i];
      at = typeof f === 'string' ? at + this.chunk.write(f, at, 'utf8') : writeTsvBytes(f, this.chunk, at, sizes[i]);
    }
    this.at = at;
    return { table, bytes: this.chunk.subarray(start, at) };
  }

  private addText(table: string, text: string): Line {
    const start = this.room(Buffer.byteLength(text, 'utf8'));
    this.at += this.chunk.write(text, start, 'utf8');
    return { table, bytes: this.chunk.subarray(start, this.at) };
  }

  /** Where `n` bytes fit: in this chunk, else at the start of a new one. */
  private room(n: number): number {
    if (this.at + n > this.chunk.length) {
      this.chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, n));
      this.at = 0;
    }
    return this.at;
  }
}

/** What the sink writer stamps after a row's own columns: these when the row is handed over… */
const SOURCE_COLUMNS = ['sink_id', 'src_topic', 'src_partition', 'src_offset'];
/** …and these when its batch is flushed (log_id on the tables keyed by log). */
const FLUSH_COLUMNS = ['version', 'sunk_at'];
const STAMPED: ReadonlySet<string> = new Set([...SOURCE_COLUMNS, ...FLUSH_COLUMNS, 'log_id']);

/** The sink writer's rows of the crawl's tables as lines, each table's columns fixed by its first row. */
export class SinkLines {
  private readonly own = new Map<string, string[]>();
  private readonly fields: (string | Uint8Array)[] = [];
  private readonly arena = new LineArena();

  /**
   * `row` (which must have exactly its table's columns), then `stamps`: the SOURCE_COLUMNS, already
   * TabSeparated.
   */
  add(table: string, row: Readonly<Record<string, unknown>>, stamps: string): Line {
    const fields = this.fields;
    tsvFields(row, this.ownColumns(table, row), fields);
    fields.push(stamps);
    return this.arena.add(table, fields);
  }

  /** Every column of `table`'s lines once their batch's stamps end them. */
  columns(table: string, logKeyed: boolean): string[] {
    const own = this.own.get(table);
    if (!own) throw new Error(`no ${table} row was encoded`);
    return [...own, ...SOURCE_COLUMNS, ...FLUSH_COLUMNS, ...(logKeyed ? ['log_id'] : [])];
  }

  private ownColumns(table: string, row: Readonly<Record<string, unknown>>): string[] {
    let columns = this.own.get(table);
    if (!columns) {
      columns = Object.keys(row);
      const stamped = columns.find((c) => STAMPED.has(c));
      if (stamped) throw new Error(`a ${table} row holds ${stamped}, which the sink writer stamps itself`);
      this.own.set(table, columns);
    }
    return columns;
  }
}

/** The lines of one INSERT, each ended by `end` (the batch's own stamps and the newline). */
export function tsvPayload(lines: readonly Line[], end: string, from = 0, to = lines.length): Buffer {
  const tail = Buffer.from(end, 'utf8');
  let total = 0;
  for (let i = from; i < to; i++) total += lines[i].bytes.length + tail.length;
  const out = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (let i = from; i < to; i++) {
    at += lines[i].bytes.copy(out, at);
    at += tail.copy(out, at);
  }
  return out;
}

/**
 * The same bytes as tsvPayload, copied a piece of about `pieceBytes` at a time as the insert's stream
 * reads them: a server INSERT then holds ~1 MB of its payload at once instead of a second copy of it all.
 */
export function* tsvPieces(lines: readonly Line[], end: string, pieceBytes = 1 << 20): Generator<Buffer> {
  const tail = Buffer.byteLength(end, 'utf8');
  for (let from = 0; from < lines.length; ) {
    let to = from + 1;
    for (let bytes = lines[from].bytes.length + tail; to < lines.length && bytes + lines[to].bytes.length + tail <= pieceBytes; to++) bytes += lines[to].bytes.length + tail;
    yield tsvPayload(lines, end, from, to);
    from = to;
  }
}
