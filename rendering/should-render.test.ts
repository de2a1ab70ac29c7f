import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTO_RULE, shouldRender } from './should-render.js';

const page = (p: Partial<{ scripts: number; textLength: number; links: number; bytes: number }>) =>
  ({ scripts: 3, textLength: 5000, links: 40, bytes: 30_000, ...p });

test('should follow never and always whatever the page', () => {
  assert.equal(shouldRender('never', page({ links: 0, textLength: 0 })), false);
  assert.equal(shouldRender('always', page({ scripts: 0 })), true);
});

test('should render in auto mode an application shell: scripts with almost no links or no text', () => {
  assert.equal(shouldRender('auto', page({ links: 0, textLength: 40 })), true);
  assert.equal(shouldRender('auto', page({ links: AUTO_RULE.minLinks - 1 })), true);
  assert.equal(shouldRender('auto', page({ textLength: AUTO_RULE.minText - 1, links: 50 })), true);
});

test('should not render in auto mode a server-rendered page, a page without scripts, or an oversized one', () => {
  assert.equal(shouldRender('auto', page({})), false);
  assert.equal(shouldRender('auto', page({ links: AUTO_RULE.minLinks, textLength: AUTO_RULE.minText })), false);
  assert.equal(shouldRender('auto', page({ scripts: 0, links: 0, textLength: 0 })), false);
  assert.equal(shouldRender('auto', page({ links: 0, bytes: AUTO_RULE.maxBytes + 1 })), false);
  assert.equal(shouldRender('auto', page({ links: 0, bytes: 0 })), false);
});
