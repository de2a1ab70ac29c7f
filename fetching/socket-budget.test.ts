import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { SocketBudget, WARM_FIRST_MS } from './socket-budget.js';
import { fetcherTestKit } from './testing/test-kit.js';

const { fetcher, http } = fetcherTestKit();

/**
 * A budget of one slot, held by a request to origin a running on a's socket, on a clock the test
 * moves; `ask` queues a request and records when it gets its slot.
 */
async function slotHeldByA() {
  let now = 0;
  const budget = new SocketBudget(1, () => now);
  const connect = budget.wrap((_opts, cb) => cb(null, Object.assign(new EventEmitter(), { destroy() {} }) as unknown as Socket));
  const key = (host: string) => `http://${host}:80`;
  await budget.acquire(key('a'));
  budget.begin(key('a'));
  await new Promise<void>((resolve) => connect({ protocol: 'http:', hostname: 'a', port: '80' }, () => resolve()));
  const order: string[] = [];
  const ask = (host: string, name = host) => budget.acquire(key(host)).then(() => void order.push(name));
  return { budget, key, order, ask, advance: (ms: number) => (now += ms) };
}

test('should give a freed slot to a request whose origin has an idle socket before older requests that would dial', async () => {
  const { budget, key, order, ask } = await slotHeldByA();
  const b = ask('b'); // b has no socket and asked first
  const a = ask('a'); // a's next request
  budget.end(key('a')); // a's socket is idle now
  budget.release();
  await a;
  assert.deepEqual(order, ['a'], 'a went first: it dials nothing and closes nobody\'s socket');
  budget.begin(key('a'));
  budget.end(key('a'));
  budget.release();
  await b;
  assert.deepEqual(order, ['a', 'b']);
});

test('should let a request without a socket go first once it has waited its bound', async () => {
  const { budget, key, order, ask, advance } = await slotHeldByA();
  const b = ask('b');
  const a = ask('a');
  budget.end(key('a'));
  advance(WARM_FIRST_MS);
  budget.release();
  await b;
  assert.deepEqual(order, ['b'], 'b waited long enough: a warm socket no longer jumps the line');
  budget.release();
  await a;
});

test('should count one warm waiter per idle socket, so the next request to the origin still waits in line', async () => {
  const { budget, key, order, ask } = await slotHeldByA();
  const b = ask('b');
  const a1 = ask('a', 'a1');
  const a2 = ask('a', 'a2');
  budget.end(key('a'));
  budget.release();
  await a1;
  budget.begin(key('a')); // a1 runs on the one socket: a2 is not warm
  budget.release();
  await b;
  assert.deepEqual(order, ['a1', 'b']);
  budget.release();
  await a2;
});

test('should reuse each origin\'s connection through its run of requests when more origins wait than there are sockets', async () => {
  // Three hosts, two sockets, each host asking for its next page as soon as its last one is read (a
  // lease at no delay). First come first served closed one host's idle socket to dial another's at
  // almost every request.
  const servers = await Promise.all(['127.0.0.4', '127.0.0.5', '127.0.0.6'].map((h) => http(h, (_req, res) => setTimeout(() => res.end('ok'), 5))));
  const f = fetcher({ maxConnections: 2 });
  const run = async (i: number) => {
    for (let n = 0; n < 8; n++) assert.equal((await f.fetch(servers[i].url(`/${n}`))).status, 200);
  };
  await Promise.all([0, 1, 2].map(run));
  const dialled = servers.reduce((n, s) => n + s.connections, 0);
  assert.ok(dialled <= 4, `${dialled} connections for 24 requests to 3 hosts over 2 sockets`);
});
