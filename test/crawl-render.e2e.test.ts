// test-plan: e2e ~27s
// Rendering pages whose links are written by JavaScript (--render auto), judged from the servers' own
// logs: the links are followed, and every request the browser made went through the crawler's rules
// (one at a time per host with its delay, robots.txt obeyed, another host's script never fetched).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, runCli, type CliRun } from './support/cli.js';
import { peakConcurrency } from './support/crawl-checks.js';
import type { WebRequest } from '../test-web/synthetic-web.js';

const DELAY_MS = 150;
const APP = '127.60.0.1';
const OTHER = '127.60.0.2';

/** A JavaScript application: its pages are empty shells whose links a script writes. */
function appPage(n: number, port: number): string {
  const next = n < 4 ? `/app/${n + 1}` : '/app/end';
  return `<!doctype html><html><head><title>App ${n}</title>
<script src="/static/app.js"></script>
<script src="/private/tracker.js"></script>
<script src="http://${OTHER}:${port}/cdn/lib.js"></script>
</head><body><div id="root"></div>
<script>
  const a = document.createElement('a'); a.href = '${next}'; a.textContent = 'next';
  document.getElementById('root').appendChild(a);
</script></body></html>`;
}

async function serve(address: string, port: number, log: WebRequest[], handle: (path: string) => [number, string, string]): Promise<Server> {
  const server = createServer((req, res) => {
    const entry: WebRequest = { host: `${address}:${port}`, path: req.url ?? '', method: req.method ?? '', userAgent: '', startedAt: Date.now(), endedAt: Infinity, status: 0 };
    log.push(entry);
    const [status, type, body] = handle(req.url ?? '/');
    // Each answer takes a while, so that overlapping requests would show in the log.
    setTimeout(() => {
      res.writeHead(status, { 'content-type': type }).end(body, () => {
        entry.endedAt = Date.now();
        entry.status = status;
      });
    }, 30);
  });
  await new Promise<void>((resolve) => server.listen(port, address, resolve));
  return server;
}

describe('rendering JavaScript-written links through the crawler\'s own rules', () => {
  const log: WebRequest[] = [];
  const servers: Server[] = [];
  let run: CliRun;
  let dataDir: string;
  let port: number;

  before(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, APP, resolve));
    port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    servers.push(await serve(APP, port, log, (path) => {
      if (path === '/robots.txt') return [200, 'text/plain', 'User-agent: *\nDisallow: /private/\n'];
      if (path === '/static/app.js') return [200, 'application/javascript', 'window.appLoaded = true;'];
      if (path === '/' ) return [200, 'text/html', appPage(1, port)];
      const m = /^\/app\/(\d+)$/.exec(path);
      if (m) return [200, 'text/html', appPage(Number(m[1]), port)];
      if (path === '/app/end') return [200, 'text/html', '<!doctype html><title>End</title><p>' + 'The end of the application. '.repeat(20) + '</p>'];
      return [404, 'text/plain', 'not found'];
    }));
    servers.push(await serve(OTHER, port, log, () => [200, 'application/javascript', 'window.lib = 1;']));
    dataDir = mkdtempSync(join(tmpdir(), 'render-'));
    run = await runCli(['crawl', `http://${APP}:${port}/`, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', String(DELAY_MS),
      '--no-sitemaps', '--render', 'auto', '--quiet']);
  });

  after(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
  });

  it('should follow links that only a script writes', () => {
    assert.equal(run.code, 0, run.stderr);
    const paths = log.filter((r) => r.host.startsWith(APP)).map((r) => r.path);
    for (const p of ['/app/2', '/app/3', '/app/4', '/app/end']) assert.ok(paths.includes(p), `${p} was reached: ${paths.join(' ')}`);
  });

  it('should send the browser\'s requests one at a time per host, after the host\'s delay, robots.txt obeyed', () => {
    const app = log.filter((r) => r.host.startsWith(APP)).sort((a, b) => a.startedAt - b.startedAt);
    assert.equal(app[0].path, '/robots.txt');
    assert.equal(peakConcurrency(app), 1, 'never two requests at once to the host');
    for (let i = 1; i < app.length; i++) {
      const gap = app[i].startedAt - app[i - 1].endedAt;
      assert.ok(gap >= DELAY_MS - 5, `${app[i - 1].path} → ${app[i].path}: ${gap} ms apart`);
    }
    assert.ok(app.some((r) => r.path === '/static/app.js'), 'the page\'s own script was fetched through the crawler');
    assert.ok(!app.some((r) => r.path.startsWith('/private/')), 'robots.txt disallows the tracker');
    assert.equal(log.filter((r) => r.host.startsWith(OTHER)).length, 0, 'another host\'s script is refused, not fetched');
  });

  it('should keep what the browser did in the fetched record: rendered DOM, refused requests', async () => {
    const [row] = await query<{ n: string }>(dataDir, "SELECT count() AS n FROM fetches FINAL WHERE kind = 'page' AND status = 200");
    assert.ok(Number(row.n) >= 5);
  });
});

describe('rendering without a browser', () => {
  it('should refuse --render auto at once, naming what to install, when no Chromium can be found', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'render-no-browser-'));
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('<html><body>hello</body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.61', r));
    try {
      const { port } = server.address() as { port: number };
      const r = await runCli(['crawl', `http://127.0.0.61:${port}/`, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--render', 'auto', '--quiet'],
        { env: { PATH: join(dataDir, 'no-browser-here'), CRAWLSTREAM_CHROMIUM: '' } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--render auto needs Chromium: install Debian's chromium package/);
      assert.deepEqual(requests, [], 'nothing was fetched');
    } finally {
      server.close();
    }
  });
});
