// Decides which destination addresses the crawler may connect to. Everything that is not the public
// internet (private, loopback, link-local, CGNAT, multicast, documentation, ...) is refused unless an
// operator opened it with --allow-network <cidr>; the refusal reason names the range and that flag.
import { isIP } from 'node:net';

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

/** A CIDR over the 128-bit space; IPv4 lives at ::ffff:0:0/96 so ::ffff:127.0.0.1 IS 127.0.0.1 here. */
interface Cidr { base: bigint; bits: number; text: string }
interface SpecialRange extends Cidr { label: string }

const ALL = (1n << 128n) - 1n;
const V4_MAPPED_BASE = 0xffffn << 32n;

function maskFor(bits: number): bigint {
  return bits === 0 ? 0n : (ALL >> BigInt(128 - bits)) << BigInt(128 - bits);
}

function contains(c: Cidr, value: bigint): boolean {
  return (value & maskFor(c.bits)) === c.base;
}

function parseV4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(text: string): bigint | null {
  let head = text;
  let tailV4: bigint | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tailV4 = parseV4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    head = text.slice(0, lastColon + 1) + '0:0'; // placeholder groups, replaced below
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  let v = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tailV4 !== null) v = (v & ~0xffffffffn) | tailV4;
  return v;
}

/** Parses an IPv4 or IPv6 literal (brackets and a %zone are tolerated) into the unified 128-bit space. */
export function parseIp(text: string): bigint | null {
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  const family = isIP(s);
  if (family === 4) {
    const v4 = parseV4(s);
    return v4 === null ? null : V4_MAPPED_BASE | v4;
  }
  return family === 6 ? parseV6(s) : null;
}

function parseCidr(text: string): Cidr | null {
  const s = text.trim();
  const slash = s.indexOf('/');
  const addr = slash === -1 ? s : s.slice(0, slash);
  const value = parseIp(addr);
  if (value === null || addr.includes('%') || addr.includes('[')) return null;
  const v4 = isIP(addr) === 4;
  const max = v4 ? 32 : 128;
  let prefix = max;
  if (slash !== -1) {
    const p = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) return null;
    prefix = Number(p);
  }
  const bits = v4 ? prefix + 96 : prefix;
  return { base: value & maskFor(bits), bits, text: s };
}

function range(text: string, label: string): SpecialRange {
  const c = parseCidr(text);
  if (!c) throw new Error(`bad built-in range ${text}`);
  return { ...c, label };
}

// Special-purpose registries of IANA (RFC 6890 and successors): none of these is a public web server.
const SPECIAL: SpecialRange[] = [
  range('0.0.0.0/8', 'unspecified ("this network")'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'CGNAT shared'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignment'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'IPv4-compatible (deprecated)'),
  range('64:ff9b:1::/48', 'NAT64 local-use'),
  range('100::/64', 'discard-only'),
  range('2001::/32', 'Teredo tunnel'),
  range('2001:10::/28', 'ORCHID'),
  range('2001:20::/28', 'ORCHIDv2'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('fc00::/7', 'unique-local (private)'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
];

// Prefixes that carry an IPv4 address inside: the embedded address decides where packets end up.
const NAT64 = range('64:ff9b::/96', 'NAT64');
const SIX_TO_FOUR = range('2002::/16', '6to4');

function embeddedV4(value: bigint): bigint | null {
  if (contains(NAT64, value)) return V4_MAPPED_BASE | (value & 0xffffffffn);
  if (contains(SIX_TO_FOUR, value)) return V4_MAPPED_BASE | ((value >> 80n) & 0xffffffffn);
  return null;
}

function formatV4(value: bigint): string {
  const n = Number(value & 0xffffffffn);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function mostSpecific(value: bigint): SpecialRange | null {
  let best: SpecialRange | null = null;
  for (const r of SPECIAL) if (contains(r, value) && (!best || r.bits > best.bits)) best = r;
  return best;
}

export class NetworkPolicy {
  private readonly allow: Cidr[];

  /** @throws Error naming the offending entry when an allowed CIDR is malformed. */
  constructor(allowCidrs: string[]) {
    this.allow = allowCidrs.map((text) => {
      const c = parseCidr(String(text));
      if (!c) {
        throw new Error(
          `invalid CIDR "${text}" for --allow-network: expected an address with an optional prefix length, ` +
            'like 10.0.0.0/8, 127.0.0.1 or fd00::/8',
        );
      }
      return c;
    });
  }

  check(ip: string): PolicyVerdict {
    const value = parseIp(String(ip));
    if (value === null) return { allowed: false, reason: `"${ip}" is not an IP address` };
    const inner = embeddedV4(value);
    if (this.allow.some((c) => contains(c, value) || (inner !== null && contains(c, inner)))) {
      return { allowed: true };
    }
    const direct = mostSpecific(value);
    if (direct) return { allowed: false, reason: refusal(ip, direct, null) };
    if (inner !== null) {
      const viaV4 = mostSpecific(inner);
      if (viaV4) return { allowed: false, reason: refusal(ip, viaV4, formatV4(inner)) };
    }
    return { allowed: true };
  }
}

function refusal(ip: string, r: SpecialRange, embedded: string | null): string {
  const what = embedded === null ? `${ip} is` : `${ip} embeds ${embedded}, which is`;
  return `${what} in ${r.label} range ${r.text} (open it with --allow-network ${r.text})`;
}
