import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetworkPolicy, parseIp } from './network-policy.js';

function refusal(policy: NetworkPolicy, ip: string): string {
  const v = policy.check(ip);
  assert.equal(v.allowed, false, `${ip} should be refused`);
  return v.allowed ? '' : v.reason;
}

test('should refuse every non-public IPv4 destination with the range and the flag that opens it', () => {
  const p = new NetworkPolicy([]);
  assert.equal(
    refusal(p, '10.1.2.3'),
    '10.1.2.3 is in private range 10.0.0.0/8 (open it with --allow-network 10.0.0.0/8)',
  );
  const cases: Array<[string, string]> = [
    ['127.0.0.1', 'loopback range 127.0.0.0/8'],
    ['127.255.1.2', 'loopback range 127.0.0.0/8'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['169.254.169.254', 'link-local range 169.254.0.0/16'],
    ['172.16.0.1', 'private range 172.16.0.0/12'],
    ['172.31.255.255', 'private range 172.16.0.0/12'],
    ['192.168.1.1', 'private range 192.168.0.0/16'],
    ['100.64.0.1', 'CGNAT shared range 100.64.0.0/10'],
    ['100.127.255.255', 'CGNAT shared range 100.64.0.0/10'],
    ['224.0.0.1', 'multicast range 224.0.0.0/4'],
    ['255.255.255.255', 'reserved range 240.0.0.0/4'],
    ['192.0.2.7', 'documentation range 192.0.2.0/24'],
    ['198.18.0.1', 'benchmarking range 198.18.0.0/15'],
  ];
  for (const [ip, expected] of cases) {
    const reason = refusal(p, ip);
    assert.ok(reason.includes(expected), `${ip}: ${reason}`);
    assert.ok(reason.includes('--allow-network'), reason);
  }
});

test('should allow public addresses right next to refused ranges', () => {
  const p = new NetworkPolicy([]);
  for (const ip of ['8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '11.0.0.1', '1.1.1.1',
    '2606:4700::1111', '2a00:1450::1']) {
    assert.deepEqual(p.check(ip), { allowed: true }, ip);
  }
});

test('should refuse non-public IPv6 destinations', () => {
  const p = new NetworkPolicy([]);
  const cases: Array<[string, string]> = [
    ['::1', 'loopback range ::1/128'],
    ['::', 'unspecified range ::/128'],
    ['fe80::1', 'link-local range fe80::/10'],
    ['fe80::1%eth0', 'link-local range fe80::/10'],
    ['fd12:3456::1', 'unique-local (private) range fc00::/7'],
    ['ff02::1', 'multicast range ff00::/8'],
    ['2001:db8::1', 'documentation range 2001:db8::/32'],
    ['[::1]', 'loopback range ::1/128'],
  ];
  for (const [ip, expected] of cases) {
    const reason = refusal(p, ip);
    assert.ok(reason.includes(expected), `${ip}: ${reason}`);
  }
});

test('should see through IPv4-mapped, NAT64 and 6to4 addresses to the IPv4 address they reach', () => {
  const p = new NetworkPolicy([]);
  assert.ok(refusal(p, '::ffff:127.0.0.1').includes('loopback range 127.0.0.0/8'));
  // WHATWG URL serializes mapped addresses in hex, which must be recognised too.
  assert.ok(refusal(p, '::ffff:7f00:1').includes('loopback range 127.0.0.0/8'));
  assert.ok(refusal(p, '::ffff:a01:203').includes('private range 10.0.0.0/8'));
  assert.ok(refusal(p, '64:ff9b::10.1.2.3').includes('embeds 10.1.2.3, which is in private range'));
  assert.ok(refusal(p, '2002:c0a8:0101::1').includes('embeds 192.168.1.1'));
  assert.deepEqual(p.check('::ffff:8.8.8.8'), { allowed: true });
  assert.deepEqual(p.check('64:ff9b::8.8.8.8'), { allowed: true });
});

test('should open exactly the allowed CIDRs, in both notations of an IPv4 address', () => {
  const p = new NetworkPolicy(['10.0.0.0/8', '127.0.0.2', 'fd00::/8']);
  assert.deepEqual(p.check('10.200.3.4'), { allowed: true });
  assert.deepEqual(p.check('::ffff:10.200.3.4'), { allowed: true });
  assert.deepEqual(p.check('127.0.0.2'), { allowed: true });
  assert.equal(p.check('127.0.0.3').allowed, false);
  assert.deepEqual(p.check('fd00::5'), { allowed: true });
  assert.equal(p.check('fc12::5').allowed, false);
  assert.equal(p.check('192.168.0.1').allowed, false);
  assert.deepEqual(new NetworkPolicy(['0.0.0.0/0']).check('127.0.0.1'), { allowed: true });
  assert.deepEqual(new NetworkPolicy(['::/0']).check('fe80::1'), { allowed: true });
});

test('should throw a clear error on a malformed CIDR', () => {
  for (const bad of ['10.0.0.0/33', '10.0.0/8', 'localhost', '', '10.0.0.0/', '::1/129', '1.2.3.4/-1',
    '300.1.1.1/8', '10.0.0.0/8/8', 'fe80::1%eth0/64']) {
    assert.throws(() => new NetworkPolicy([bad]), (err: Error) => {
      assert.match(err.message, /invalid CIDR ".*" for --allow-network/);
      return true;
    }, bad);
  }
});

test('should refuse strings that are not IP addresses instead of throwing', () => {
  const p = new NetworkPolicy([]);
  assert.equal(refusal(p, 'example.test'), '"example.test" is not an IP address');
  assert.equal(p.check('1.2.3').allowed, false);
  assert.equal(p.check('').allowed, false);
});

test('should parse IPv6 forms to the same value', () => {
  assert.equal(parseIp('::ffff:127.0.0.1'), parseIp('127.0.0.1'));
  assert.equal(parseIp('0:0:0:0:0:ffff:7f00:0001'), parseIp('127.0.0.1'));
  assert.equal(parseIp('1::'), 1n << 112n);
  assert.equal(parseIp('not-an-ip'), null);
});
