// Growing an embedded application's partition count (it is stopped: the data directory belongs to
// one process). Stores need no copying: every store key starts with its host's virtual bucket, and
// the task that owns a bucket under the new count reads it where it is. Log records do move: the
// records of moved hosts that some consumer has not processed yet are copied to the new partition,
// with each consumer's position there marking what it had already done; the old partition's task
// skips them from then on because it no longer owns their keys. Everything lands in one batch.
import { join } from 'node:path';
import { partitionFor, virtualBucket } from '../partitioning.js';
import { storePrefix, prefixEnd } from '../stores/level-store.js';
import { storedName, type StoreSpec } from '../stores/key-value-store.js';
import type { Topology } from '../topology.js';
import type { InputPosition } from '../task/input-position.js';
import { PartitionLog, type AppendRecord, type LostRange } from '../embedded/partition-log.js';
import { checkBeforeState, refuseLostCommits, settleIdentity, type UncommittedTail } from '../embedded/data-dir.js';
import { encodeJson, logEndKey, metaKey, openStateDb, positionKey, readJson, readLogEnd, readPosition } from '../embedded/state-db.js';
import type { ScaleEvent } from './scale-history.js';

export interface ScaleReport {
  from: number;
  to: number;
  /** Routing keys found in the store the caller asked about (e.g. the scheduler's hosts), and how many moved. */
  keys: number;
  movedKeys: number;
  copiedRecords: number;
  /** Ranges damage made unreadable that held records some consumer had not processed: they were not carried over. */
  lost: LostRange[];
}

/** `keysOf`: a store whose keys are routing keys, to report how many of them changed owner. */
export async function scaleEmbedded(dataDir: string, to: number, topology: Topology, keysOf: StoreSpec<string, unknown>,
  logger: { info(m: string): void } = { info: () => {} }): Promise<ScaleReport> {
  // The same checks as a run: a state that lost its log, or lost commits, must not be rewritten here.
  const found = checkBeforeState(dataDir);
  const db = await openStateDb(join(dataDir, 'state'));
  const logs: PartitionLog[] = [];
  try {
    const from = await readJson<number>(db, metaKey('partitions'));
    if (from === undefined) throw new Error(`${dataDir} holds no crawl`);
    if (to <= from) throw new Error(`the crawl has ${from} partitions; scale can only grow it (asked for ${to})`);
    await settleIdentity(db, dataDir, found, logger);
    await refuseUnsafeLog(db, dataDir, topology, from);
    const lost: LostRange[] = [];
    const ops: { type: 'put'; key: Buffer; value: Buffer }[] = [];
    const event: ScaleEvent = { from, to, at: Date.now(), copied: {} };
    let copiedRecords = 0;
    for (const topic of topology.topics.values()) {
      const groups = topology.processors.filter((p) => p.inputs.includes(topic.name)).map((p) => p.name);
      const open = async (p: number) => {
        const log = new PartitionLog(join(dataDir, 'log', topic.name, String(p)), topic.name, p);
        log.open(await readLogEnd(db, topic.name, p));
        logs.push(log);
        return log;
      };
      const targets = new Map<number, { records: AppendRecord[]; done: Map<string, number[]> }>();
      for (let p = 0; p < from; p++) {
        const log = await open(p);
        const positions = new Map<string, InputPosition>();
        for (const g of groups) positions.set(g, (await readPosition(db, g, topic.name, p)) ?? { base: log.start, done: [] });
        // Below every consumer's position the records are done for all: nothing to carry over.
        const threshold = groups.length ? Math.min(...[...positions.values()].map((x) => x.base)) : log.end;
        lost.push(...log.lostRanges.filter((r) => r.to > threshold));
        event.copied[`${topic.name}/${p}`] = [threshold, log.end];
        for (let offset = threshold; offset < log.end; ) {
          const batch = log.read(offset, 1024);
          if (batch.length === 0) break;
          for (const r of batch) {
            const q = partitionFor(r.key, to);
            if (q === p) continue;
            let target = targets.get(q);
            if (!target) targets.set(q, (target = { records: [], done: new Map(groups.map((g) => [g, []])) }));
            const newOffset = target.records.length;
            target.records.push({ key: r.key, value: r.value, timestamp: r.timestamp });
            for (const g of groups) {
              const pos = positions.get(g)!;
              if (r.offset < pos.base || pos.done.includes(r.offset)) target.done.get(g)!.push(newOffset);
            }
          }
          offset = batch[batch.length - 1].offset + 1;
        }
      }
      for (let q = from; q < to; q++) {
        const log = await open(q);
        const target = targets.get(q);
        if (target?.records.length) {
          const { end } = log.append(target.records);
          ops.push({ type: 'put', key: logEndKey(topic.name, q), value: encodeJson(end) });
          copiedRecords += target.records.length;
        }
        for (const g of groups) {
          ops.push({ type: 'put', key: positionKey(g, topic.name, q), value: encodeJson({ base: 0, done: target?.done.get(g) ?? [] }) });
        }
      }
    }
    const history = (await readJson<ScaleEvent[]>(db, metaKey('scale-events'))) ?? [];
    ops.push({ type: 'put', key: metaKey('scale-events'), value: encodeJson([...history, event]) });
    ops.push({ type: 'put', key: metaKey('partitions'), value: encodeJson(to) });
    // One batch: before it lands nothing changed (the copies sit past the recorded log ends and are
    // cut off when the logs are next opened); after it, the new count holds everywhere.
    await db.batch(ops);
    const { keys, moved } = await movedKeys(db, storedName(keysOf), from, to);
    return { from, to, keys, movedKeys: moved, copiedRecords, lost };
  } finally {
    for (const log of logs) log.close();
    await db.close();
  }
}

/** Records of a commit round later than the state's prove it lost commits (see refuseLostCommits). */
async function refuseUnsafeLog(db: Awaited<ReturnType<typeof openStateDb>>, dataDir: string, topology: Topology, partitions: number): Promise<void> {
  const round = (await readJson<number>(db, metaKey('commit-round'))) ?? 0;
  const tails: UncommittedTail[] = [];
  for (const topic of topology.topics.values()) {
    for (let p = 0; p < partitions; p++) {
      const log = new PartitionLog(join(dataDir, 'log', topic.name, String(p)), topic.name, p);
      const end = await readLogEnd(db, topic.name, p);
      tails.push({ topic: topic.name, partition: p, end: end?.end ?? 0, ...log.inspect(end).uncommitted });
    }
  }
  refuseLostCommits(dataDir, round, tails);
}

/** Keys of one store, and how many of them changed owner. */
async function movedKeys(db: Awaited<ReturnType<typeof openStateDb>>, store: string, from: number, to: number): Promise<{ keys: number; moved: number }> {
  const prefix = storePrefix(store);
  let keys = 0;
  let moved = 0;
  for await (const key of db.keys({ gte: prefix, lt: prefixEnd(prefix) })) {
    const host = key.subarray(prefix.length + 2).toString('utf8');
    if (virtualBucket(host) !== key.readUInt16BE(prefix.length)) continue;
    keys++;
    if (partitionFor(host, from) !== partitionFor(host, to)) moved++;
  }
  return { keys, moved };
}
