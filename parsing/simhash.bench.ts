import { pathToFileURL } from 'node:url';
import { simhash64 } from './simhash.js';
import { textWorld } from './sample-pages.js';

/** Cost of simhash64 on the text of a 1,000-word page (article plus site template). */
export async function benchSimhash(durationMs = 2_000): Promise<{ microsPerPage: number; pagesPerSecond: number }> {
  const world = textWorld(5);
  const { nav, footer } = world.template(6);
  const texts = Array.from({ length: 8 }, (_, i) => [...nav, ...world.article(940, 100 + i), ...footer].join(' '));
  for (const warmUntil = Date.now() + Math.min(500, durationMs / 4); Date.now() < warmUntil;) {
    for (let i = 0; i < 50; i++) simhash64(texts[i & 7]);
  }
  await new Promise(resolve => setImmediate(resolve));
  let pages = 0;
  const start = process.hrtime.bigint();
  const stopAt = Date.now() + durationMs;
  while (Date.now() < stopAt) {
    for (let i = 0; i < 50; i++) simhash64(texts[pages++ & 7]);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { microsPerPage: Math.round((seconds / pages) * 1e7) / 10, pagesPerSecond: Math.round(pages / seconds) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchSimhash());
}
