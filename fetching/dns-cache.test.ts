import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { DnsCache, DnsLookupError, policyLookup } from './dns-cache.js';
import { NetworkPolicy } from './network-policy.js';

function counting(answer: (host: string) => Promise<string[]>) {
  const calls: string[] = [];
  return { calls, resolve: (h: string) => (calls.push(h), answer(h)) };
}

test('should resolve each hostname once while cached and share concurrent lookups', async () => {
  const r = counting(async () => ['127.0.0.2']);
  const cache = new DnsCache(60_000, r.resolve);
  const all = await Promise.all([cache.resolve('a.test'), cache.resolve('A.test'), cache.resolve('a.test')]);
  assert.deepEqual(all, [['127.0.0.2'], ['127.0.0.2'], ['127.0.0.2']]);
  await cache.resolve('a.test');
  assert.deepEqual(r.calls, ['a.test']);
  const uncached = new DnsCache(0, r.resolve);
  await uncached.resolve('b.test');
  await uncached.resolve('b.test');
  assert.equal(r.calls.filter((h) => h === 'b.test').length, 2);
});

test('should cache "no such host" but retry temporary failures', async () => {
  const r = counting(async (h) => {
    throw Object.assign(new Error('x'), { code: h === 'gone.test' ? 'ENOTFOUND' : 'EAI_AGAIN' });
  });
  const cache = new DnsCache(60_000, r.resolve);
  for (let i = 0; i < 3; i++) {
    await assert.rejects(cache.resolve('gone.test'), (e: DnsLookupError) => e.code === 'ENOTFOUND');
    await assert.rejects(cache.resolve('flaky.test'), /flaky\.test did not resolve \(EAI_AGAIN\)/);
  }
  assert.equal(r.calls.filter((h) => h === 'gone.test').length, 1);
  assert.equal(r.calls.filter((h) => h === 'flaky.test').length, 3);
});

test('should drop non-IP answers and fail when nothing usable is left', async () => {
  const cache = new DnsCache(1000, async () => ['not-an-ip', '']);
  await assert.rejects(cache.resolve('junk.test'), /resolved to no addresses/);
});

test('should hand sockets only the addresses the policy allows', async () => {
  const cache = new DnsCache(1000, async () => ['10.0.0.1', '127.0.0.2', '::1']);
  const lookup = policyLookup(cache, new NetworkPolicy(['127.0.0.0/8']));
  const all = await new Promise<LookupAddress[]>((resolve, reject) =>
    lookup('x.test', { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs as unknown as LookupAddress[]))));
  assert.deepEqual(all, [{ address: '127.0.0.2', family: 4 }]);
  const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    policyLookup(cache, new NetworkPolicy([]))('x.test', {}, (err) => resolve(err)));
  assert.equal(refused?.code, 'ERR_NETWORK_REFUSED');
  assert.match(refused!.message, /^10\.0\.0\.1 is in private range 10\.0\.0\.0\/8/);
});
