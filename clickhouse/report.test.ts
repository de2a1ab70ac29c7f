// The report on embedded chdb, rendered in headless Chromium: no console errors, no requests beyond
// the file itself, and marks drawn in every chart. A screenshot is kept for people to look at.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { buildReport, REPORT_QUERIES } from './report.js';
import { reportSuite, sinkReportFixture } from './testing/report-suite.js';
import { chdbEngine } from './testing/test-engines.js';

reportSuite(chdbEngine());

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

test('should render every chart with marks and no errors in a browser', { timeout: 120_000 }, async () => {
  const engine = chdbEngine();
  try {
    const ch = await sinkReportFixture(engine);
    const dir = mkdtempSync(join(tmpdir(), 'crawlstream-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, await buildReport(ch, { title: 'Fixture crawl' }));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('request', (r) => r.url() !== pathToFileURL(file).href && problems.push(`request: ${r.url()}`));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const marks = await page.$$eval('figure[data-chart]', (figures) =>
        figures.map((f) => [f.getAttribute('data-chart'), f.querySelectorAll('svg .mark').length] as const));
      assert.equal(marks.length, REPORT_QUERIES.length - 1);
      for (const [chart, count] of marks) assert.ok(count > 0, `chart ${chart} drew nothing`);
      const size = await page.$$eval('figure[data-chart] svg', (svgs) => svgs.map((s) => s.getBoundingClientRect().width));
      assert.ok(size.every((w) => w > 300), `chart widths ${size.join(',')}`);
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
      assert.deepEqual(problems, []);
      process.stdout.write(`# report screenshot: ${join(dir, 'report.png')}\n`);
    } finally {
      await browser.close();
    }
  } finally {
    await engine.cleanup();
  }
});
