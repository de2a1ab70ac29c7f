// Micro-benchmark for canonicalize() on a mix shaped like links extracted from pages: mostly
// relative links resolved against the page URL, some absolute, a few with tracking or session
// parameters, escapes, IDN hosts, and junk (mailto:, javascript:, broken).
// Run: npx tsc -p tsconfig.json && node dist/url/canonicalize.bench.js
import { canonicalize } from './canonicalize.js';
import { trapReason } from './traps.js';

const base = 'https://www.shop.example/catalog/shoes/index.html?page=2';
const links: [string, string | undefined][] = [
  ['/catalog/shoes/red-sneaker-42.html', base],
  ['red-sneaker-43.html', base],
  ['../boots/', base],
  ['?page=3&sort=price', base],
  ['#reviews', base],
  ['https://www.shop.example/cart?add=1234&qty=1', undefined],
  ['https://blog.shop.example/2024/05/summer-sale?utm_source=newsletter&utm_medium=email&utm_campaign=summer', undefined],
  ['http://Partner.Example:80/landing.php;jsessionid=9F2C3B?ref=shop&PHPSESSID=abc123', undefined],
  ['/search?q=caf%c3%a9+au+lait&lang=fr&fbclid=IwAR0abc', base],
  ['https://bücher.example/k%C3%BCche/%7Ehans/', undefined],
  ['/a/./b/../c/d/e/f/g/h.html', base],
  ['mailto:info@shop.example', base],
  ['javascript:void(0)', base],
  ['http://[::1', undefined],
  ['https://cdn.shop.example/img/p/1/2/3/4/5/thumb.jpg?v=1700000000', undefined],
  ['//static.shop.example/js/app.js?ver=5.3.2', base],
];

const trapOpts = { maxRepeatedPathSegments: 3, maxQueryParams: 12 };
const rounds = 200_000;
let sink = 0;
for (let warm = 0; warm < 20_000; warm++) {
  const [raw, b] = links[warm % links.length];
  sink += canonicalize(raw, b === undefined ? undefined : { base: b }).ok ? 1 : 0;
}
const started = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) {
  const [raw, b] = links[i % links.length];
  const r = canonicalize(raw, b === undefined ? undefined : { base: b });
  if (r.ok && trapReason(r.url, trapOpts) === undefined) sink++;
}
const ns = Number(process.hrtime.bigint() - started);
console.log(`canonicalize + trapReason: ${(ns / rounds / 1000).toFixed(2)} µs per URL over ${rounds} URLs (${sink} kept)`);
