// The test runner's plan (scripts/test-plan.mjs): which files may run together. A mistake here does
// not fail a test; it runs a service-restarting file beside the files that use the service, or lets
// the Kafka crawls crowd each other, and shows up as flaky failures elsewhere.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Planned { path: string; alone: boolean; paced: boolean; seconds: number; holds: Set<string>; sharesProcess?: boolean; members?: string[] }
interface Plan {
  planFile(rel: string, abs: string, times?: Record<string, number>, paced?: number | 'alone'): Planned;
  nextToStart(queue: Planned[], running: Planned[], slots: { cpu: number; wait: number; paced: number; beside?: number }): Planned[];
  order(files: Planned[]): Planned[];
  pacedSlots(value?: string, cores?: number): number | 'alone';
  besideSlots(value?: string): number;
  groupUnits(files: Planned[], size?: number): Planned[];
}
// The runner is plain JavaScript outside the compiled tree (it runs before and without a build).
const plan = (await import(new URL('../../scripts/test-plan.mjs', import.meta.url).href)) as Plan;

const dir = mkdtempSync(join(tmpdir(), 'test-plan-'));
function file(name: string, header: string, paced: number | 'alone' = 2, times: Record<string, number> = {}, body = 'export {};'): Planned {
  const abs = join(dir, name);
  writeFileSync(abs, `// ${header}\n${body}\n`);
  return plan.planFile(name, abs, times, paced);
}
const slots = { cpu: 2, wait: 3, paced: 2 };
const names = (fs: Planned[]) => fs.map((f) => f.path);

describe('test plan: paced files', () => {
  it('should run at most the paced slots of them at once, beside unit and e2e files', () => {
    const kafka = [1, 2, 3].map((i) => file(`k${i}.integration.test.js`, 'test-plan: e2e paced retry ~100s'));
    const e2e = file('a.e2e.test.js', 'test-plan: e2e ~60s');
    const unit = file('u.test.js', 'x');
    const queue = plan.order([unit, e2e, ...kafka]);
    assert.deepEqual(names(plan.nextToStart(queue, [], slots)), ['k1.integration.test.js', 'k2.integration.test.js', 'a.e2e.test.js', 'u.test.js']);
    assert.deepEqual(names(plan.nextToStart([kafka[2]], [kafka[0], kafka[1]], slots)), [], 'a third waits for one of the two');
    assert.deepEqual(names(plan.nextToStart([kafka[2]], [kafka[0], e2e, unit], slots)), ['k3.integration.test.js']);
  });

  it('should run each alone, first, with CRAWLSTREAM_TEST_PACED=alone', () => {
    const kafka = [1, 2].map((i) => file(`k${i}.integration.test.js`, 'test-plan: e2e paced', 'alone'));
    const e2e = file('a.e2e.test.js', 'test-plan: e2e ~300s', 'alone');
    assert.ok(kafka.every((f) => f.alone && !f.paced));
    const queue = plan.order([e2e, ...kafka]);
    assert.deepEqual(names(plan.nextToStart(queue, [], { ...slots, paced: 0 })), ['k1.integration.test.js']);
    assert.deepEqual(names(plan.nextToStart(queue.slice(1), [kafka[0]], { ...slots, paced: 0 })), []);
  });

  it('should let unit files run beside a paced file made to run alone, as many as CRAWLSTREAM_TEST_BESIDE says, and nothing else', () => {
    const [k1, k2] = [1, 2].map((i) => file(`k${i}.integration.test.js`, 'test-plan: e2e paced ~100s', 'alone'));
    const [u1, u2] = [1, 2].map((i) => file(`u${i}.test.js`, 'x'));
    const e2e = file('a.e2e.test.js', 'test-plan: e2e ~60s');
    const lone = { ...slots, paced: 0, beside: 1 };
    const queue = plan.order([u1, u2, e2e, k1, k2]);
    assert.deepEqual(names(plan.nextToStart(queue, [], lone)), ['k1.integration.test.js', 'u1.test.js'], 'the crawl and one unit file');
    assert.deepEqual(names(plan.nextToStart([k2, e2e, u2], [k1, u1], lone)), [], 'no second unit file, no e2e file, no second crawl');
    assert.deepEqual(names(plan.nextToStart([k2, e2e, u2], [k1], lone)), ['u2.test.js'], 'a unit file ended: the next one starts');
    assert.deepEqual(names(plan.nextToStart([k2, e2e], [u2], lone)), ['k2.integration.test.js'], 'the next crawl starts beside the unit file still running');
    assert.deepEqual(names(plan.nextToStart([k2], [e2e], lone)), [], 'but not beside an e2e file');
    assert.deepEqual(names(plan.nextToStart(plan.order([u1, k1]), [], { ...lone, beside: 0 })), ['k1.integration.test.js'], 'CRAWLSTREAM_TEST_BESIDE=0: alone');
  });

  it('should run a file marked alone with nothing beside it, not even a unit file', () => {
    const x = file('x.e2e.test.js', 'test-plan: e2e alone ~100s');
    const u = file('u.test.js', 'x');
    const lone = { ...slots, paced: 0, beside: 1 };
    assert.deepEqual(names(plan.nextToStart(plan.order([u, x]), [], lone)), ['x.e2e.test.js']);
    assert.deepEqual(names(plan.nextToStart([u], [x], lone)), []);
    assert.deepEqual(names(plan.nextToStart([x], [u], lone)), [], 'it waits for the unit file to end');
  });

  it('should still keep a paced file that holds a service from running beside that service\'s users', () => {
    const faults = file('faults.integration.test.js', 'test-plan: e2e holds=kafka paced');
    const user = file('user.integration.test.js', 'test-plan: e2e paced');
    assert.deepEqual(names(plan.nextToStart([user], [faults], slots)), []);
    assert.deepEqual(names(plan.nextToStart([faults], [user], slots)), []);
  });

  it('should read the setting strictly', () => {
    assert.equal(plan.pacedSlots(undefined, 4), 2);
    assert.equal(plan.pacedSlots(undefined, 2), 'alone', 'two cores: each paced crawl alone');
    assert.equal(plan.pacedSlots('3'), 3);
    assert.equal(plan.pacedSlots('alone'), 'alone');
    assert.throws(() => plan.pacedSlots('0'), /CRAWLSTREAM_TEST_PACED must be a whole number/);
    assert.throws(() => plan.pacedSlots('two'), /not "two"/);
    assert.equal(plan.besideSlots(undefined), 1);
    assert.equal(plan.besideSlots('0'), 0);
    assert.throws(() => plan.besideSlots('-1'), /CRAWLSTREAM_TEST_BESIDE must be a whole number/);
  });
});

describe('test plan: order', () => {
  it('should start the longest first, by an earlier run\'s time over the header\'s hint over the tier default', () => {
    const hinted = file('long.e2e.test.js', 'test-plan: e2e ~170s');
    const plain = file('plain.e2e.test.js', 'x');
    const measured = file('measured.e2e.test.js', 'test-plan: e2e ~10s', 2, { 'measured.e2e.test.js': 200 });
    assert.equal(plain.seconds, 15, 'the e2e default');
    assert.deepEqual(names(plan.order([plain, hinted, measured])), ['measured.e2e.test.js', 'long.e2e.test.js', 'plain.e2e.test.js']);
  });

  it('should refuse a word it does not know', () => {
    assert.throws(() => file('typo.e2e.test.js', 'test-plan: e2e pacde'), /unknown test-plan word "pacde"/);
  });
});

describe('test plan: short unit files share a process', () => {
  it('should group unit files, and keep apart those that could change the process for the files after them', () => {
    const shared = ['a.test.js', 'b.test.js', 'c.test.js'].map((n) => file(n, 'x', 2, {}, "import { test } from 'node:test';\ntest('t', () => {});"));
    const apart = [
      file('hook.test.js', 'x', 2, {}, "import { before } from 'node:test';\nbefore(() => {});"),
      file('exit.test.js', 'x', 2, {}, 'process.exitCode = 1;'),
      file('env.test.js', 'x', 2, {}, "process.env.TZ = 'UTC';"),
      file('signal.test.js', 'x', 2, {}, "process.on('SIGTERM', () => {});"),
      file('chdb.test.js', 'x', 2, {}, "import '../clickhouse/chdb.js';"),
      file('own.test.js', 'test-plan: isolated'),
      file('long.test.js', 'test-plan: ~20s'),
      file('p.test.js', 'test-plan: process'),
      file('k.integration.test.js', 'test-plan: e2e'),
    ];
    assert.deepEqual(shared.map((f) => f.sharesProcess), [true, true, true]);
    assert.deepEqual(apart.filter((f) => f.sharesProcess).map((f) => f.path), [], 'none of these shares');
    const grouped = plan.groupUnits([...apart, ...shared], 2);
    assert.deepEqual(grouped.filter((f) => f.members).map((f) => f.members), [['a.test.js', 'b.test.js'], ['c.test.js']]);
    assert.deepEqual(grouped.filter((f) => !f.members).map((f) => f.path), apart.map((f) => f.path));
    assert.equal(plan.groupUnits(shared, 1), shared, 'a group size of 1 leaves every file in its own process');
  });

  it('should read a process-wide change only where it is one', () => {
    assert.equal(file('eq.test.js', 'x', 2, {}, "if (process.env.CI === '1') {}").sharesProcess, true, 'a comparison is not an assignment');
    assert.equal(file('nested.test.js', 'x', 2, {}, "describe('d', () => {\n  before(() => {});\n});").sharesProcess, true, 'a hook inside a describe stays with its file');
  });
});
