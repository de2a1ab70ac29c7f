import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FocusGate, focusGateFor } from './focus-gate.js';
import { focusRank, scoreOfRank, scoreStep } from './rank.js';

const gate = () => new FocusGate({ width: 2, staleMs: 1000, alwaysRank: 124, margin: 25, holdMs: 100 });

describe('the focus gate', () => {
  it('should let every host go while nothing stands out', () => {
    const g = gate();
    for (let i = 0; i < 10; i++) assert.ok(g.admit(`h${i}`, 30 + (i % 3) * 8, 0), `h${i}`);
  });

  it('should hold a host back while enough hosts offer clearly better URLs', () => {
    const g = gate();
    assert.ok(g.admit('good-1', 110, 0));
    assert.ok(g.admit('plain', 40, 0), 'one better host is not enough to wait for');
    assert.ok(g.admit('good-2', 100, 0));
    assert.equal(g.admit('plain', 40, 10), false, 'two hosts offer better');
    assert.ok(g.admit('close', 90, 10), 'within the margin of the best offered');
    assert.ok(g.admit('great', 200, 10), 'a URL that looks on the topic always goes');
  });

  it('should forget offers that went stale and hosts with nothing ready', () => {
    const g = gate();
    g.admit('good-1', 110, 0);
    g.admit('good-2', 110, 0);
    assert.equal(g.admit('plain', 40, 100), false);
    assert.ok(g.admit('plain', 40, 1500), 'their offers are over a second old: they are waiting on a delay or a slow fetch');
    g.admit('good-1', 110, 1600);
    g.admit('good-2', 110, 1600);
    assert.equal(g.admit('plain', 40, 1600), false);
    g.forget('good-2');
    assert.ok(g.admit('plain', 40, 1600));
    assert.equal(g.hosts, 2);
  });

  it('should count a host\'s own offer once, whatever it offered before', () => {
    const g = gate();
    g.admit('a', 200, 0);
    g.admit('a', 40, 0);
    g.admit('b', 40, 0);
    assert.ok(g.admit('c', 40, 0), 'a\'s earlier offer no longer counts');
  });

  it('should hold a host for about one delay, between 50 ms and a second', () => {
    assert.equal(focusGateFor(20).holdMs, 50);
    assert.equal(focusGateFor(300).holdMs, 300);
    assert.equal(focusGateFor(5000).holdMs, 1000);
  });
});

describe('focus ranks', () => {
  it('should rank by score in steps of 1/32, in-links a little, unscored as a plain new URL', () => {
    assert.equal(focusRank(0, 1), 24);
    assert.ok(focusRank(0.5, 1) > focusRank(0.4, 1));
    assert.equal(focusRank(0.5, 1), focusRank(0.51, 1), 'a hundredth is noise');
    assert.equal(focusRank(0.5, 4) - focusRank(0.5, 1), 8);
    assert.ok(focusRank(1, 1024) <= 254, 'below the sitemaps\' 255');
    assert.ok(Math.abs(scoreOfRank(focusRank(0.75, 1)) - 0.75) < 1 / 32);
    assert.deepEqual([scoreStep(-1), scoreStep(0), scoreStep(1)], [-1, 0, 32]);
  });
});
