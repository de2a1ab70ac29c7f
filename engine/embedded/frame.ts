// The on-disk frame of one log record.
//
// Format 2 (written since data directories carry a log identity):
//   [u32 0x80000000 | payload length][u32 crc32(payload) seeded with V2_SEED]
//   payload = [u48 offset][u48 commit round][f64 timestamp][u16 key length][key][value]
// Format 1 (older data directories, still read):
//   [u32 payload length][u32 crc32(payload)]   payload = [u48 offset][f64 timestamp][u16 key length][key][value]
//
// The commit round lets an open tell the tail of one interrupted commit (the round after the last
// one the state recorded) from records of commits the state has lost. The top bit of the length
// tells the formats apart frame by frame (no format-1 frame is anywhere near 2 GiB), and format 2's
// CRC starts from its own seed, so a flipped bit cannot make a frame pass as the other format. (A
// seed rather than covering the header bytes: one CRC call per frame keeps opening 1 GiB of log
// within the time reading it takes.)
import { crc32 } from 'node:zlib';
import type { RawRecord } from '../task/task-records.js';

export const FRAME_HEADER = 8;
export const MAX_FRAME = 64 * 1024 * 1024;
const V2 = 0x80000000;
const V2_SEED = crc32('crawlstream frame format 2');
const FIXED_V1 = 6 + 8 + 2;
const FIXED_V2 = 6 + 6 + 8 + 2;

export interface FrameRecord {
  key: string;
  value: Buffer;
  timestamp: number;
}

/** Bytes `encodeFrames` needs for these records, whose keys are `keyBytes[i]` bytes of UTF-8. */
export function framesLength(records: readonly FrameRecord[], keyBytes: readonly number[]): number {
  let bytes = 0;
  for (let i = 0; i < records.length; i++) bytes += FRAME_HEADER + FIXED_V2 + keyBytes[i] + records[i].value.length;
  return bytes;
}

/** Writes format-2 frames for `records` (offsets from `firstOffset`) into `buffer`; returns each frame's start. */
export function encodeFrames(buffer: Buffer, records: readonly FrameRecord[], keyBytes: readonly number[], firstOffset: number, round: number): number[] {
  const starts: number[] = new Array(records.length);
  let at = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const keyLength = keyBytes[i];
    const length = FIXED_V2 + keyLength + r.value.length;
    starts[i] = at;
    buffer.writeUInt32BE((V2 | length) >>> 0, at);
    writeU48(buffer, firstOffset + i, at + 8);
    writeU48(buffer, round, at + 14);
    buffer.writeDoubleBE(r.timestamp, at + 20);
    buffer.writeUInt16BE(keyLength, at + 28);
    buffer.write(r.key, at + 30, keyLength, 'utf8');
    r.value.copy(buffer, at + 30 + keyLength);
    buffer.writeUInt32BE(frameCrc(buffer, at, length), at + 4);
    at += FRAME_HEADER + length;
  }
  return starts;
}

/**
 * Payload length of the frame whose header starts at `at`, or -1 when the header cannot start a
 * frame (a length no writer produces). Needs FRAME_HEADER bytes at `at`.
 */
export function payloadLength(buffer: Buffer, at: number): number {
  const word = buffer.readUInt32BE(at);
  const length = word & 0x7fffffff;
  const fixed = word & V2 ? FIXED_V2 : FIXED_V1;
  return length < fixed || length > MAX_FRAME ? -1 : length;
}

/** Whether the whole frame at `at` (header and payload in `buffer`) matches its CRC. */
export function frameIntact(buffer: Buffer, at: number, length: number): boolean {
  return frameCrc(buffer, at, length) === buffer.readUInt32BE(at + 4);
}

/**
 * The frame at `at` (its header and payload in `buffer`) as a record of `topic`/`partition`, the value a
 * view. Fields read in place: this runs once per record a reader takes from disk.
 */
export function frameRecord(buffer: Buffer, at: number, length: number, topic: string, partition: number): RawRecord {
  const v2 = (buffer.readUInt32BE(at) & V2) !== 0;
  const p = at + FRAME_HEADER;
  const keyAt = p + (v2 ? FIXED_V2 : FIXED_V1);
  const keyEnd = Math.min(p + length, keyAt + buffer.readUInt16BE(keyAt - 2));
  return {
    topic, partition, offset: frameOffset(buffer, at), timestamp: timestampAt(buffer, p, v2),
    key: buffer.toString('utf8', keyAt, keyEnd), value: buffer.subarray(keyEnd, p + length),
  };
}

/** Offset, round and timestamp of the frame at `at` (its header and fixed payload fields in `buffer`). */
export function frameHead(buffer: Buffer, at: number): { offset: number; round: number; timestamp: number } {
  const v2 = (buffer.readUInt32BE(at) & V2) !== 0;
  const p = at + FRAME_HEADER;
  return { offset: frameOffset(buffer, at), round: roundAt(buffer, p, v2), timestamp: timestampAt(buffer, p, v2) };
}

/** Offset of the frame at `at`: read alone, so a reader skips frames before its position without decoding them. */
export function frameOffset(buffer: Buffer, at: number): number {
  return readU48(buffer, at + FRAME_HEADER);
}

/** The commit round of the payload at `p` (format 1 has none). */
function roundAt(buffer: Buffer, p: number, v2: boolean): number {
  return v2 ? readU48(buffer, p + 6) : 0;
}

function timestampAt(buffer: Buffer, p: number, v2: boolean): number {
  return buffer.readDoubleBE(p + (v2 ? 12 : 6));
}

/** An unsigned 48-bit big-endian integer (readUIntBE(…, 6) goes through a generic byte loop). */
function readU48(buffer: Buffer, at: number): number {
  return buffer.readUInt16BE(at) * 0x1_0000_0000 + buffer.readUInt32BE(at + 2);
}

/** writeUIntBE(…, 6) goes through a generic byte loop too. */
function writeU48(buffer: Buffer, value: number, at: number): void {
  buffer.writeUInt16BE(Math.floor(value / 0x1_0000_0000), at);
  buffer.writeUInt32BE(value >>> 0, at + 2);
}

function frameCrc(buffer: Buffer, at: number, length: number): number {
  return crc32(buffer.subarray(at + FRAME_HEADER, at + FRAME_HEADER + length), buffer.readUInt32BE(at) & V2 ? V2_SEED : 0);
}
