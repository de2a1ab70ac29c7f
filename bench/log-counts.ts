// What a finished embedded crawl wrote through its topology, read from its data directory after the
// crawler exited: records per topic (the committed end of every topic partition, summed: every record
// ever appended, also those retention has deleted since), and what the `duplicates` topic holds.
import { join } from 'node:path';
import avro from 'avsc';
import { openStateDb } from '../engine/embedded/state-db.js';
import { PartitionLog, type LogEnd } from '../engine/embedded/partition-log.js';
import { loadSchema } from '../schemas/schema-files.js';
import type { Duplicate } from '../schemas/records.js';

export interface LogCounts {
  /** Records ever appended, per topic. */
  perTopic: Record<string, number>;
  total: number;
  /** The duplicates topic: its records and the distinct pages they report (a page reported twice counts once). */
  duplicates: { records: number; pages: number; exact: number; near: number };
}

/** Confluent wire format: magic byte 0, a 4-byte schema id, then the Avro body. */
const WIRE_HEADER = 5;

export async function countLogs(dataDir: string): Promise<LogCounts> {
  const db = await openStateDb(join(dataDir, 'state'));
  const ends = new Map<string, LogEnd>();
  try {
    // Log ends are stored as e!<topic>!<partition> (engine/embedded/state-db.ts).
    for await (const [k, v] of db.iterator({ gte: Buffer.from('e!'), lt: Buffer.from('e"') })) {
      ends.set(k.toString('utf8').slice(2), JSON.parse(v.toString('utf8')) as LogEnd);
    }
  } finally {
    await db.close();
  }
  const perTopic: Record<string, number> = {};
  for (const [id, end] of ends) {
    const topic = id.slice(0, id.lastIndexOf('!'));
    perTopic[topic] = (perTopic[topic] ?? 0) + end.end;
  }
  const type = avro.Type.forSchema(loadSchema('duplicate'));
  const pages = new Set<string>();
  const dup = { records: 0, pages: 0, exact: 0, near: 0 };
  for (const [id, end] of ends) {
    const sep = id.lastIndexOf('!');
    if (id.slice(0, sep) !== 'duplicates') continue;
    const partition = Number(id.slice(sep + 1));
    const log = new PartitionLog(join(dataDir, 'log', 'duplicates', String(partition)), 'duplicates', partition);
    log.open(end);
    try {
      for (let at = log.start; at < log.end;) {
        const batch = log.read(at, 1000);
        if (batch.length === 0) break;
        for (const r of batch) {
          const d = type.fromBuffer(r.value.subarray(WIRE_HEADER)) as Duplicate;
          dup.records++;
          if (d.kind === 'exact') dup.exact++;
          else dup.near++;
          pages.add(d.url);
        }
        at = batch[batch.length - 1].offset + 1;
      }
    } finally {
      log.close();
    }
  }
  dup.pages = pages.size;
  return { perTopic, total: Object.values(perTopic).reduce((a, b) => a + b, 0), duplicates: dup };
}
