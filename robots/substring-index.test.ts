import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from './sample-robots.js';
import { SubstringIndex, TEXT_END, TEXT_START } from './substring-index.js';

function found(index: SubstringIndex, text: string): number[] {
  const out: number[] = [];
  index.scan(text, out);
  return out.sort((x, y) => x - y);
}

/** What the index must report: keys occurring in the framed text, each once. */
function naive(keys: string[], text: string): number[] {
  const framed = TEXT_START + text + TEXT_END;
  return keys.map((k, i) => (framed.includes(k) ? i : -1)).filter((i) => i >= 0);
}

test('should report every key the text contains, once, and no other', () => {
  const keys = ['he', 'she', 'his', 'hers', 'e', 'rs', 'x'];
  const index = new SubstringIndex(keys);
  assert.deepEqual(found(index, 'ushers'), [0, 1, 3, 4, 5]);
  assert.deepEqual(found(index, 'hehehe'), [0, 4]);
  assert.deepEqual(found(index, ''), []);
  assert.deepEqual(found(index, 'zzz'), []);
});

test('should match keys with the start and end marks only at the ends of the text', () => {
  const keys = [TEXT_START + '/a', 'b' + TEXT_END, TEXT_START + '/ab' + TEXT_END, '/a'];
  const index = new SubstringIndex(keys);
  assert.deepEqual(found(index, '/ab'), [0, 1, 2, 3]);
  assert.deepEqual(found(index, '/x/ab'), [1, 3]);
  assert.deepEqual(found(index, '/abc'), [0, 3]);
});

test('should agree with a naive search on random keys and texts', () => {
  const random = seededRandom(9);
  // A three-letter alphabet makes keys nest in each other and overlap in the text.
  const word = (max: number) => Array.from({ length: random(max + 1) }, () => 'abc'[random(3)]).join('');
  for (let round = 0; round < 300; round++) {
    const keys = [...new Set(Array.from({ length: 1 + random(12) }, () => {
      const k = word(5);
      const marked = random(5) === 0 ? TEXT_START + k : random(5) === 0 ? k + TEXT_END : k;
      return marked === '' ? 'a' : marked;
    }))];
    const index = new SubstringIndex(keys);
    for (let j = 0; j < 10; j++) {
      const text = word(12);
      assert.deepEqual(found(index, text), naive(keys, text), `keys ${JSON.stringify(keys)} text ${text}`);
    }
  }
});

test('should scan in at most two steps per character whatever the keys', () => {
  const keys = Array.from({ length: 200 }, (_, i) => 'a'.repeat(i + 1)); // every key nests in the next
  const index = new SubstringIndex([...keys, 'ab', 'aab', 'b']);
  for (const text of ['a'.repeat(500), 'ab'.repeat(250), 'b'.repeat(500), 'xyz'.repeat(100)]) {
    const out: number[] = [];
    const steps = index.scan(text, out);
    assert.ok(steps <= 2 * (text.length + 2), `${steps} steps for ${text.length} characters`);
    assert.equal(new Set(out).size, out.length, 'a key reported twice');
  }
});

test('should refuse keys that are not ASCII, since its tables have 128 columns', () => {
  assert.throws(() => new SubstringIndex(['/café']), RangeError);
  const index = new SubstringIndex(['/caf']);
  assert.deepEqual(found(index, '/café'), [0]); // text outside ASCII just matches nothing
});

test('should be reusable across many scans', () => {
  const index = new SubstringIndex(['ab', 'b']);
  for (let i = 0; i < 1000; i++) assert.deepEqual(found(index, i % 2 === 0 ? 'xab' : 'xx'), i % 2 === 0 ? [0, 1] : []);
});
