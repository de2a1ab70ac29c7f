// Whether a data directory's log and state belong together. The log identity is created with the
// data directory and written twice: in the state (`meta!log-id`) and in the log (`log/IDENTITY`,
// written once and fsynced). A state that was deleted, recreated or lost its write-ahead log no
// longer knows where each reader stood in the log: running on would redo everything the log holds
// (every URL refetched) while the sink, whose positions are keyed by the log identity, writes
// nothing. Such a directory is refused until the user chooses (restore the state, or set the old
// log and state aside with --reset-state and start a new log).
//
// Formats: 1 = before log identities (no log/IDENTITY, frames without commit rounds); 2 = now.
// A format-1 directory is upgraded in place on open: its identity file is written from its state.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Level } from 'level';
import { encodeJson, metaKey, readJson, type StateDb } from './state-db.js';

export const DATA_FORMAT = 2;

/** The data directory cannot be used as it is; the message says what was found and the choices. */
export class DataDirRefusal extends Error {
  override name = 'DataDirRefusal';
}

export interface LogIdentity {
  logId: string;
  createdAt: string;
}

export interface DataDirFindings {
  identity?: LogIdentity;
  /** Some segment file of the log holds bytes. */
  logHasRecords: boolean;
}

const identityPath = (dataDir: string) => join(dataDir, 'log', 'IDENTITY');

export function resetHint(dataDir: string): string {
  return (
    `Choose: restore ${join(dataDir, 'state')} from a backup and run again, or run \`crawlstream crawl ... --data-dir ${dataDir} --reset-state\` ` +
    `to set the old log and state aside (under ${join(dataDir, 'aside-<UTC time>')}) and start a new log from the seeds (ClickHouse is not touched).`
  );
}

function describe(identity: LogIdentity | undefined): string {
  return identity ? `log ${identity.logId}, created ${identity.createdAt}` : 'a log from before log identities';
}

/** Looks at the log before the state is opened (opening would create an empty state). Refuses a log without its state. */
export function checkBeforeState(dataDir: string): DataDirFindings {
  const findings: DataDirFindings = { identity: readIdentity(dataDir), logHasRecords: logHasRecords(join(dataDir, 'log')) };
  if (!existsSync(join(dataDir, 'state', 'CURRENT')) && findings.logHasRecords) {
    throw new DataDirRefusal(
      `${dataDir} holds a log (${describe(findings.identity)}) but its state ${join(dataDir, 'state')} is missing, so where each processor ` +
        `stood in the log is unknown: running on would redo everything the log holds (a crawl fetches every URL again) while ` +
        `sinks keyed by the log identity write nothing new. ${resetHint(dataDir)}`,
    );
  }
  return findings;
}

/**
 * Settles the log identity once the state is open, before anything is written to it: creates it for
 * a new data directory, upgrades a format-1 one, refuses a state and a log that do not belong together.
 */
export async function settleIdentity(db: StateDb, dataDir: string, found: DataDirFindings, logger: { info(m: string): void }): Promise<string> {
  const format = await readJson<number>(db, metaKey('format'));
  if (format !== undefined && format > DATA_FORMAT) {
    throw new DataDirRefusal(`${dataDir} was written by a newer crawlstream (data format ${format}; this one reads up to ${DATA_FORMAT}); use that version`);
  }
  const stateId = await readJson<string>(db, metaKey('log-id'));
  const { identity } = found;
  const state = join(dataDir, 'state');
  if (stateId === undefined) {
    if (found.logHasRecords) {
      throw new DataDirRefusal(
        `the state in ${state} holds no log identity (it was recreated, or its write-ahead log was lost) while ${join(dataDir, 'log')} holds ` +
          `records (${describe(identity)}): where each processor stood is unknown, and running on would redo everything the log holds. ${resetHint(dataDir)}`,
      );
    }
    // A new data directory, or one whose creation stopped between the identity file and the state.
    const created = identity ?? writeIdentity(dataDir, { logId: randomUUID(), createdAt: new Date().toISOString() });
    await db.batch([
      { type: 'put', key: metaKey('log-id'), value: encodeJson(created.logId) },
      { type: 'put', key: metaKey('format'), value: encodeJson(DATA_FORMAT) },
    ], { sync: true });
    return created.logId;
  }
  if (identity && identity.logId !== stateId) {
    throw new DataDirRefusal(
      `the state in ${state} belongs to log ${stateId}, but ${identityPath(dataDir)} says the log there is ${identity.logId} ` +
        `(created ${identity.createdAt}): the state and the log come from different crawls. ${resetHint(dataDir)}`,
    );
  }
  if (!identity) {
    if (format !== undefined) {
      throw new DataDirRefusal(
        `the state in ${state} belongs to log ${stateId}, but ${identityPath(dataDir)} is missing: the log was removed or replaced. ${resetHint(dataDir)}`,
      );
    }
    writeIdentity(dataDir, { logId: stateId, createdAt: new Date().toISOString() });
    await db.put(metaKey('format'), encodeJson(DATA_FORMAT), { sync: true });
    logger.info(`${dataDir}: upgraded to data format ${DATA_FORMAT} (log identity ${stateId} now also kept in ${identityPath(dataDir)})`);
  } else if (format === undefined) {
    await db.put(metaKey('format'), encodeJson(DATA_FORMAT), { sync: true });
  }
  return stateId;
}

export interface UncommittedTail {
  topic: string;
  partition: number;
  /** The committed end the state records for this partition. */
  end: number;
  records: number;
  newestRound: number;
}

/**
 * A kill -9 leaves past the recorded ends at most the records of the one commit it interrupted
 * (round recorded + 1). Records of a later round prove that the state lost commits that had
 * succeeded (its write-ahead log was truncated, as an OS crash can do): resuming would redo their
 * work and forget what they recorded.
 */
export function refuseLostCommits(dataDir: string, recordedRound: number, tails: readonly UncommittedTail[]): void {
  const proof = tails.filter((t) => t.records > 0 && t.newestRound > recordedRound + 1);
  if (proof.length === 0) return;
  const newest = Math.max(...proof.map((t) => t.newestRound));
  const where = proof.slice(0, 3).map((t) => `${t.topic}/${t.partition} holds ${t.records} records past offset ${t.end}`).join(', ');
  throw new DataDirRefusal(
    `the state in ${join(dataDir, 'state')} has lost commits: it records commit round ${recordedRound}, but the log holds records of rounds ` +
      `up to ${newest} past the ends the state records (${where}${proof.length > 3 ? `, and ${proof.length - 3} more partitions` : ''}). ` +
      `Its write-ahead log was probably cut short (an OS crash or a full disk); running on would redo that work and lose what it recorded. ${resetHint(dataDir)}`,
  );
}

function readIdentity(dataDir: string): LogIdentity | undefined {
  const path = identityPath(dataDir);
  if (!existsSync(path)) return undefined;
  let parsed: Partial<LogIdentity> | undefined;
  try {
    // A few dozen bytes when crawlstream wrote it: anything large is not ours, and is not read whole.
    if (statSync(path).size <= 4096) parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LogIdentity>;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.logId !== 'string' || typeof parsed.createdAt !== 'string') {
    throw new DataDirRefusal(`${path} is damaged (not the log identity crawlstream writes). ${resetHint(dataDir)}`);
  }
  return { logId: parsed.logId, createdAt: parsed.createdAt };
}

/** Written once, through a temporary file and a rename, with the file and the directory fsynced. */
function writeIdentity(dataDir: string, identity: LogIdentity): LogIdentity {
  const dir = join(dataDir, 'log');
  mkdirSync(dir, { recursive: true });
  const tmp = `${identityPath(dataDir)}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, JSON.stringify(identity) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, identityPath(dataDir));
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return identity;
}

function logHasRecords(logDir: string): boolean {
  if (!existsSync(logDir)) return false;
  for (const topic of readdirSync(logDir, { withFileTypes: true })) {
    if (!topic.isDirectory()) continue;
    for (const partition of readdirSync(join(logDir, topic.name), { withFileTypes: true })) {
      if (!partition.isDirectory()) continue;
      const dir = join(logDir, topic.name, partition.name);
      for (const f of readdirSync(dir)) if (f.endsWith('.log') && statSync(join(dir, f)).size > 0) return true;
    }
  }
  return false;
}

/**
 * Moves the log and the state to `aside-<UTC time>/` inside the data directory (ClickHouse's files
 * stay where they are); returns that directory, or undefined when there was nothing to set aside.
 */
export async function setAsideLogAndState(dataDir: string, now = new Date()): Promise<string | undefined> {
  const parts = ['log', 'state'].filter((p) => existsSync(join(dataDir, p)));
  if (parts.length === 0) return undefined;
  if (existsSync(join(dataDir, 'state'))) await assertNotInUse(join(dataDir, 'state'));
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let aside = join(dataDir, `aside-${stamp}`);
  for (let n = 2; existsSync(aside); n++) aside = join(dataDir, `aside-${stamp}-${n}`);
  mkdirSync(aside);
  for (const p of parts) renameSync(join(dataDir, p), join(aside, p));
  return aside;
}

/** A running crawl holds the state's lock: never move a data directory out from under it. */
async function assertNotInUse(state: string): Promise<void> {
  const db = new Level(state, { createIfMissing: false });
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    if (/lock/i.test(cause)) throw new Error(`${state} is in use by another crawlstream process (${cause}); stop it before --reset-state`);
    return; // damaged beyond opening: setting it aside is what the user asked for
  }
  await db.close();
}
