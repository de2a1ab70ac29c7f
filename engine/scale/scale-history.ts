// What each growth of the partition count did to the records already in the log: the records of
// moved hosts that some consumer had not processed yet were copied to their new partition. A replay
// reads every record exactly once by skipping the originals of copied records.
import { join } from 'node:path';
import { partitionFor } from '../partitioning.js';
import { metaKey, openStateDb, readJson } from '../embedded/state-db.js';

export interface ScaleEvent {
  from: number;
  to: number;
  at: number;
  /** `${topic}/${partition}` → [first copied offset, end at the time]: the range whose moved records were copied. */
  copied: Record<string, [number, number]>;
}


export function copiedAway(events: ScaleEvent[], topic: string, partition: number, offset: number, key: string): boolean {
  for (const e of events) {
    const range = e.copied[`${topic}/${partition}`];
    if (range && offset >= range[0] && offset < range[1] && partitionFor(key, e.to) !== partition) return true;
  }
  return false;
}

/** The scale events recorded in an embedded data directory (read before its runtime opens it). */
export async function readScaleEvents(dataDir: string): Promise<ScaleEvent[]> {
  const db = await openStateDb(join(dataDir, 'state'));
  try {
    return (await readJson<ScaleEvent[]>(db, metaKey('scale-events'))) ?? [];
  } finally {
    await db.close();
  }
}
