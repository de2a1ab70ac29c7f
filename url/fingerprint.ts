// 64-bit fingerprints of strings (canonical URLs), as two independent 32-bit halves: the Bloom filter
// probes with both halves, the exact seen-set stores all 8 bytes. At 10 million URLs the chance of
// any collision is about 3 in a million.
import type { KeyCodec } from '../engine/api.js';
import { hash32 } from '../engine/partitioning.js';

export interface Fingerprint {
  hi: number;
  lo: number;
}

export function fingerprint64(s: string): Fingerprint {
  return { hi: hash32(s), lo: hash32(s, 0x9747b28c) };
}

export function fingerprintBytes(f: Fingerprint): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(f.hi, 0);
  b.writeUInt32BE(f.lo, 4);
  return b;
}

/** A URL's host (which task owns it) and its fingerprint: the key of the seen-set and of the frontier's URL states. */
export interface HostFingerprint extends Fingerprint {
  host: string;
}

export const hostFingerprintKeys: KeyCodec<HostFingerprint> = {
  routingKey: (k) => k.host,
  encode: fingerprintBytes,
  // The host is not stored (8 bytes per URL instead of ~30): callers that scan know which host they asked for.
  decode: (b) => ({ host: '', hi: b.readUInt32BE(0), lo: b.readUInt32BE(4) }),
};
