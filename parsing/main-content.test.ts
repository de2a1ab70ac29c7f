import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isBoilerplate, isMainContent } from './main-content.js';

test('should call navigation, headers, footers, sidebars, comments and ads boilerplate', () => {
  for (const tag of ['nav', 'header', 'footer', 'aside', 'menu', 'select']) assert.equal(isBoilerplate(tag, {}), true, tag);
  for (const role of ['navigation', 'banner', 'contentinfo', 'complementary', 'search', ' Navigation ']) {
    assert.equal(isBoilerplate('div', { role }), true, role);
  }
  for (const cls of ['site-header', 'nav_main', 'top menu', 'Sidebar', 'comments', 'share-buttons', 'cookie-consent',
    'related', 'ad', 'breadcrumbs', 'pager']) {
    assert.equal(isBoilerplate('div', { class: cls }), true, cls);
    assert.equal(isBoilerplate('div', { id: cls }), true, `id ${cls}`);
  }
});

test('should not call content or look-alike words boilerplate', () => {
  for (const cls of ['entry-content', 'navigator', 'headerless', 'adverb', 'shared-memory', 'commentary', 'x'.repeat(300) + ' nav']) {
    assert.equal(isBoilerplate('div', { class: cls }), false, cls);
  }
  // Layout classes on the document's outer elements describe the page, not a part of it.
  for (const tag of ['html', 'body', 'main', 'article']) assert.equal(isBoilerplate(tag, { class: 'has-sidebar header-fixed' }), false);
  assert.equal(isBoilerplate('p', {}), false);
});

test('should recognise the main content element by tag, role, itemprop, class or id', () => {
  assert.equal(isMainContent('main', {}), true);
  assert.equal(isMainContent('article', {}), true);
  assert.equal(isMainContent('div', { role: 'main' }), true);
  assert.equal(isMainContent('div', { itemprop: 'articleBody' }), true);
  for (const cls of ['entry-content', 'post-body', 'article_text', 'story-body wide', 'content']) {
    assert.equal(isMainContent('div', { class: cls }), true, cls);
  }
  assert.equal(isMainContent('div', { id: 'main' }), true);
  for (const cls of ['contents-table', 'maintenance', 'post-meta']) assert.equal(isMainContent('div', { class: cls }), false, cls);
});
