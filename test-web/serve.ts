#!/usr/bin/env node
// Runs a synthetic web in its own process (benchmarks, the demo):
//   node dist/test-web/serve.js --scenario bench [--hosts N --pages N --page-bytes N --links N]
//        [--port P] [--first-address 127.x.y.z] [--log FILE] [--ignore-stdin]
// Prints one JSON line {"port":…,"seeds":[…],"origins":[…]} on stdout once listening and nothing else.
// Exits on SIGTERM, SIGINT or when stdin closes (so a parent that dies takes it along); --ignore-stdin is
// for running it detached with stdin at /dev/null. With --log FILE the request log is written as JSON lines
// on exit (endedAt of a request still in flight at exit is written as null).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startSyntheticWeb } from './synthetic-web.js';
import type { BenchOptions, ScenarioName } from './types.js';

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', default: 'bench' },
      hosts: { type: 'string' },
      pages: { type: 'string' },
      'page-bytes': { type: 'string' },
      links: { type: 'string' },
      port: { type: 'string' },
      'first-address': { type: 'string' },
      log: { type: 'string' },
      'ignore-stdin': { type: 'boolean', default: false },
    },
  });
  const scenario = values.scenario as ScenarioName;
  if (!['test', 'bench', 'demo', 'fresh', 'topic'].includes(scenario)) throw new Error('--scenario must be test, bench, demo, fresh or topic');
  const bench: Partial<BenchOptions> = {};
  const set = (key: keyof BenchOptions, flag: string, raw: string | undefined) => {
    const n = positiveInt(flag, raw);
    if (n !== undefined) bench[key] = n;
  };
  set('hosts', 'hosts', values.hosts);
  set('pagesPerHost', 'pages', values.pages);
  set('pageBytes', 'page-bytes', values['page-bytes']);
  set('linksPerPage', 'links', values.links);

  const web = await startSyntheticWeb({
    scenario,
    bench,
    port: positiveInt('port', values.port),
    firstAddress: values['first-address'],
    log: values.log !== undefined,
  });
  process.stdout.write(`${JSON.stringify({ port: web.port, seeds: web.seeds, origins: web.hosts.map((h) => h.origin) })}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await web.close();
    if (values.log !== undefined) {
      const lines = web.requests.map((r) => JSON.stringify({ ...r, endedAt: Number.isFinite(r.endedAt) ? r.endedAt : null }));
      writeFileSync(values.log, lines.length > 0 ? `${lines.join('\n')}\n` : '');
    }
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (!values['ignore-stdin']) {
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    process.stdin.resume();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
