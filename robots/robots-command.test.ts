import { test } from 'node:test';
import assert from 'node:assert/strict';
import { robotsCommandLines } from './robots-command.js';

const ROBOTS = [
  'User-agent: *',
  'Disallow: /',
  '',
  'User-agent: crawlstream',
  'Disallow: /private/',
  'Allow: /private/open$',
].join('\n');

test('should print one verdict line per URL in input order', () => {
  const urls = ['http://site.example/', 'http://site.example/private/x', 'http://site.example/private/open', 'http://site.example/robots.txt'];
  assert.deepEqual(robotsCommandLines(ROBOTS, 'crawlstream', urls), [
    'allowed http://site.example/',
    'disallowed http://site.example/private/x',
    'allowed http://site.example/private/open',
    'allowed http://site.example/robots.txt',
  ]);
});

test('should take the product token from a full User-Agent string', () => {
  const url = 'http://site.example/page';
  assert.deepEqual(robotsCommandLines(ROBOTS, 'crawlstream/0.1 (+https://crawlstream.example/bot)', [url]), [`allowed ${url}`]);
  assert.deepEqual(robotsCommandLines(ROBOTS, 'CrawlStream (compatible)', [url]), [`allowed ${url}`]);
});

test('should fall back to the * group for another crawler', () => {
  const url = 'http://site.example/page';
  assert.deepEqual(robotsCommandLines(ROBOTS, 'otherbot/2.0', [url]), [`disallowed ${url}`]);
});

test('should answer disallowed for a URL it cannot parse', () => {
  assert.deepEqual(robotsCommandLines(ROBOTS, 'crawlstream', ['http://[::1']), ['disallowed http://[::1']);
});

test('should return no lines for no URLs', () => {
  assert.deepEqual(robotsCommandLines(ROBOTS, 'crawlstream', []), []);
});
