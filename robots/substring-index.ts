// Which of many literal keys occur in a short text, in one pass over the text (Aho–Corasick).
// rule-matcher.ts keys every rule by one literal its pattern requires, so a URL path is compared
// only with the rules whose key it contains, however many rules the file has.
//
// Written here rather than taken from npm: modern-ahocorasick, the maintained package, segments
// text into graphemes and reports every occurrence; on 37,000 keys it took ~590 ms to build and
// ~30 µs per 60-character path, where this builds in tens of ms and scans in a few µs (same
// machine). Here each key is reported once per text however often it occurs, so reporting costs
// at most text length + keys found, and the tables are typed arrays (~21 bytes per trie node).

/** Virtual first character of every scanned text: a key starting with it matches only at the start. */
export const TEXT_START = '\u0000';
/** Virtual last character of every scanned text: a key ending with it matches only at the end. */
export const TEXT_END = '\u0001';

const START_CODE = 0;
const END_CODE = 1;
const ALPHABET = 128;

export class SubstringIndex {
  /** The children of node n are nodes childStart[n] .. childStart[n + 1] - 1, sorted by character. */
  private readonly childStart: Int32Array;
  private readonly nodeChar: Uint8Array;
  private readonly fail: Int32Array;
  /** Nearest node on the fail chain (itself excluded) where a key ends, or -1. */
  private readonly dict: Int32Array;
  /** The key ending at a node, or -1. */
  private readonly keyAt: Int32Array;
  private readonly rootNext = new Int32Array(ALPHABET).fill(-1);
  /** seen[n] === stamp when node n's key was reported in the current scan. */
  private readonly seen: Int32Array;
  private stamp = 0;

  /** `keys` must be distinct, non-empty and ASCII (char codes < 128); key i is reported as i. */
  constructor(keys: readonly string[]) {
    let total = 1;
    for (const key of keys) total += key.length;
    const parent = new Int32Array(total);
    const chars = new Uint8Array(total);
    const keyAt = new Int32Array(total).fill(-1);
    let n = 1;
    // Level by level: the keys still longer than the depth, ordered by (node so far, next character)
    // with two stable counting sorts, give the new nodes ids in breadth-first order with the
    // children of each node consecutive and sorted by character. No per-node map, no string sort.
    const current = new Int32Array(keys.length);
    let active = new Int32Array(keys.length);
    for (let k = 0; k < keys.length; k++) active[k] = k;
    let scratch = new Int32Array(keys.length);
    const code = new Uint8Array(keys.length);
    const byChar = new Int32Array(ALPHABET + 1);
    let levelFirst = 0;
    let levelEnd = 1;
    for (let depth = 0; ; depth++) {
      let m = 0;
      for (let i = 0; i < active.length; i++) {
        const k = active[i];
        const key = keys[k];
        if (key.length === depth) {
          keyAt[current[k]] = k;
          continue;
        }
        const c = key.charCodeAt(depth);
        if (c >= ALPHABET) throw new RangeError(`SubstringIndex keys must be ASCII: ${JSON.stringify(key.slice(0, 40))}`);
        code[k] = c;
        active[m++] = k;
      }
      if (m === 0) break;
      byChar.fill(0);
      for (let i = 0; i < m; i++) byChar[code[active[i]] + 1]++;
      for (let c = 0; c < ALPHABET; c++) byChar[c + 1] += byChar[c];
      for (let i = 0; i < m; i++) scratch[byChar[code[active[i]]]++] = active[i];
      const byParent = new Int32Array(levelEnd - levelFirst + 1);
      for (let i = 0; i < m; i++) byParent[current[scratch[i]] - levelFirst + 1]++;
      for (let p = 0; p < levelEnd - levelFirst; p++) byParent[p + 1] += byParent[p];
      for (let i = 0; i < m; i++) active[byParent[current[scratch[i]] - levelFirst]++] = scratch[i];
      active = active.subarray(0, m);
      scratch = scratch.subarray(0, m);

      const first = n;
      let lastParent = -1;
      let lastChar = -1;
      for (let i = 0; i < m; i++) {
        const k = active[i];
        const p = current[k];
        const c = code[k];
        if (p !== lastParent || c !== lastChar) {
          parent[n] = p;
          chars[n] = c;
          n++;
          lastParent = p;
          lastChar = c;
        }
        current[k] = n - 1;
      }
      levelFirst = first;
      levelEnd = n;
    }

    this.nodeChar = chars.slice(0, n);
    this.keyAt = keyAt.slice(0, n);
    const childStart = new Int32Array(n + 1);
    for (let v = 1; v < n; v++) childStart[parent[v] + 1]++;
    childStart[0] = 1;
    for (let v = 0; v < n; v++) childStart[v + 1] += childStart[v];
    this.childStart = childStart;
    for (let v = childStart[0]; v < childStart[1]; v++) this.rootNext[chars[v]] = v;

    // Breadth-first order means a node's parent and every node on its fail chain come before it.
    const fail = new Int32Array(n);
    const dict = new Int32Array(n).fill(-1);
    const ends = this.keyAt;
    this.fail = fail;
    for (let v = 1; v < n; v++) {
      const p = parent[v];
      if (p !== 0) fail[v] = this.advance(fail[p], chars[v]);
      const f = fail[v];
      dict[v] = ends[f] >= 0 ? f : dict[f];
    }
    this.dict = dict;
    this.seen = new Int32Array(n);
  }

  /** Trie nodes, root included: memory is about 21 bytes per node. */
  get nodes(): number {
    return this.nodeChar.length;
  }

  /**
   * Appends to `found` the index of every key occurring in TEXT_START + text + TEXT_END, each once.
   * Returns the automaton steps taken (fail transitions included): at most 2 × (text.length + 2).
   */
  scan(text: string, found: number[]): number {
    if (++this.stamp === 0x7fffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    let steps = 0;
    let node = 0;
    for (let i = -1; i <= text.length; i++) {
      const c = i < 0 ? START_CODE : i === text.length ? END_CODE : text.charCodeAt(i);
      for (;;) {
        steps++;
        const next = this.child(node, c);
        if (next >= 0) {
          node = next;
          break;
        }
        if (node === 0) break;
        node = this.fail[node];
      }
      // A node already reported in this scan had its whole dict chain reported with it.
      for (let v = this.keyAt[node] >= 0 ? node : this.dict[node]; v >= 0 && this.seen[v] !== this.stamp; v = this.dict[v]) {
        this.seen[v] = this.stamp;
        found.push(this.keyAt[v]);
      }
    }
    return steps;
  }

  /** The node reached from `node` on `c`, following fail links; the root when nothing matches. */
  private advance(node: number, c: number): number {
    for (;;) {
      const next = this.child(node, c);
      if (next >= 0) return next;
      if (node === 0) return 0;
      node = this.fail[node];
    }
  }

  private child(node: number, c: number): number {
    if (c >= ALPHABET) return -1;
    if (node === 0) return this.rootNext[c];
    let lo = this.childStart[node];
    let hi = this.childStart[node + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const mc = this.nodeChar[mid];
      if (mc === c) return mid;
      if (mc < c) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

