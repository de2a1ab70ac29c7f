// The monitoring deployment: Prometheus rules and config checked by promtool, the alerts unit-tested,
// and the Grafana dashboard, its provisioning and docker-compose.yml checked against each other and
// against the metrics the code exports.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlMetrics } from '../metrics/crawl-metrics.js';
import { pythonTools, REPO_ROOT, run, systemTool } from '../warc/python-tools.js';

const DEPLOY = join(REPO_ROOT, 'deploy');
const RULES = join(DEPLOY, 'prometheus', 'rules', 'crawlstream.rules.yml');
const DASHBOARD = join(DEPLOY, 'grafana', 'dashboards', 'crawlstream.json');

const promtool = systemTool('promtool');
const promSkip = typeof promtool === 'string' ? false : promtool.skip;
const py = pythonTools();
const pySkip = typeof py === 'string' ? py : false;

async function promtoolRun(args: string[]): Promise<void> {
  const r = await run(promtool as string, args);
  assert.equal(r.code, 0, `promtool ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
}

/** YAML files parsed by PyYAML (the venv's), as JSON. */
async function yaml(...files: string[]): Promise<any[]> {
  if (typeof py === 'string') throw new Error(py);
  const r = await run(py.python, ['-c', 'import sys, json, yaml; print(json.dumps([yaml.safe_load(open(f)) for f in sys.argv[1:]]))', ...files]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

interface Panel { title: string; datasource: { uid: string }; targets: { expr: string; datasource: { uid: string } }[] }
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: Panel[]; templating: { list: { query: { query: string } }[] } };

/** Metric names a PromQL expression selects: identifiers followed by a selector or range. */
function selectedMetrics(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const names = [...withoutStrings.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*[{[]/g)].map((m) => m[1]);
  // Bare crawlstream_ names (e.g. `sum(crawlstream_frontier_urls)`) are metrics too.
  names.push(...[...withoutStrings.matchAll(/\bcrawlstream_[a-z0-9_]+/g)].map((m) => m[0]));
  return [...new Set(names)];
}

async function exported(): Promise<Set<string>> {
  return new Set([...(await new CrawlMetrics().seriesNames()), 'up']);
}

describe('deploy/prometheus', () => {
  it('should pass promtool check rules and check config', { skip: promSkip }, async () => {
    await promtoolRun(['check', 'rules', RULES]);
    await promtoolRun(['check', 'config', join(DEPLOY, 'prometheus', 'prometheus.yml')]);
  });

  it('should raise each alert on a history that calls for it and stay quiet otherwise (promtool test rules)', { skip: promSkip }, async () => {
    await promtoolRun(['test', 'rules', join(DEPLOY, 'prometheus', 'rules-tests', 'crawlstream.test.yml')]);
  });

  it('should alert only on metrics the code exports', { skip: pySkip }, async () => {
    const [rules] = await yaml(RULES);
    const names = await exported();
    const exprs: string[] = rules.groups.flatMap((g: { rules: { expr: string }[] }) => g.rules.map((r) => r.expr));
    assert.ok(exprs.length >= 5);
    for (const expr of exprs) {
      for (const m of selectedMetrics(expr)) assert.ok(names.has(m), `rule query names ${m}, which nothing exports:\n${expr}`);
    }
  });
});

describe('the worker metrics port convention', () => {
  it('should scrape exactly the ports the README and docker-compose.yml tell workers to take', { skip: pySkip }, async () => {
    const [targets] = await yaml(join(DEPLOY, 'prometheus', 'targets', 'crawlstream-workers.yml'));
    const scraped = (targets as { targets: string[] }[]).flatMap((t) => t.targets).map((t) => {
      const m = /^127\.0\.0\.1:(\d+)$/.exec(t);
      assert.ok(m, `target ${t} is a loopback port (workers listen on 127.0.0.1 by default)`);
      return Number(m[1]);
    });
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const kafka = readme.slice(readme.indexOf('## Kafka mode'), readme.indexOf('\n## ', readme.indexOf('## Kafka mode') + 1));
    const told = (text: string) => [...text.matchAll(/--metrics-port (\d+)|\b(94\d\d)\b/g)].map((m) => Number(m[1] ?? m[2]));
    assert.deepEqual([...new Set(told(kafka))].sort(), [...scraped].sort(), 'the README\'s Kafka section');
    const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    assert.deepEqual([...new Set(told(compose))].sort(), [...scraped].sort(), 'docker-compose.yml');
  });
});

describe('deploy/grafana', () => {
  it('should query in every panel only metrics the code exports', async () => {
    const names = await exported();
    const exprs = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...dashboard.templating.list.map((v) => v.query.query)];
    for (const p of dashboard.panels) assert.ok(p.targets.length > 0 && p.targets.every((t) => selectedMetrics(t.expr).length > 0), `panel ${p.title} queries a metric`);
    for (const expr of exprs) {
      for (const m of selectedMetrics(expr)) assert.ok(names.has(m), `dashboard query names ${m}, which nothing exports:\n${expr}`);
    }
  });

  it('should have the panels an operator needs', () => {
    const titles = dashboard.panels.map((p) => p.title);
    for (const want of ['Pages fetched per second', 'Fetch outcomes', 'Errors by kind', 'Bytes on the wire', 'Frontier', 'Hosts waiting',
      'Fetches in flight', 'Lag per partition', 'Fetch latency percentiles']) {
      assert.ok(titles.includes(want), `panel "${want}" in ${titles}`);
    }
    const latency = dashboard.panels.find((p) => p.title === 'Fetch latency percentiles')!;
    assert.deepEqual(latency.targets.map((t) => /histogram_quantile\((0\.\d+)/.exec(t.expr)?.[1]), ['0.5', '0.9', '0.99']);
  });

  it('should wire dashboard, provisioning and docker-compose.yml to each other', { skip: pySkip }, async () => {
    const [datasources, providers, compose, prom] = await yaml(
      join(DEPLOY, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'),
      join(DEPLOY, 'grafana', 'provisioning', 'dashboards', 'crawlstream.yml'),
      join(REPO_ROOT, 'docker-compose.yml'),
      join(DEPLOY, 'prometheus', 'prometheus.yml'),
    );
    const ds = datasources.datasources[0];
    for (const p of dashboard.panels) {
      assert.equal(p.datasource.uid, ds.uid, `panel ${p.title} uses the provisioned datasource`);
      for (const t of p.targets) assert.equal(t.datasource.uid, ds.uid);
    }
    const promArgs: string[] = compose.services.prometheus.command;
    const listen = promArgs.find((a) => a.startsWith('--web.listen-address='))!.split('=')[1];
    assert.equal(ds.url, `http://${listen}`, 'Grafana reaches Prometheus where it listens');
    assert.ok(listen.startsWith('127.0.0.1:'), 'Prometheus listens on loopback only');
    assert.ok(promArgs.includes('--config.file=/etc/prometheus/prometheus.yml'));
    assert.ok(compose.services.prometheus.volumes.includes('./deploy/prometheus:/etc/prometheus:ro'));
    assert.deepEqual(prom.rule_files, ['rules/crawlstream.rules.yml']);
    const gVolumes: string[] = compose.services.grafana.volumes;
    assert.ok(gVolumes.includes('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro'));
    assert.ok(gVolumes.includes(`./deploy/grafana/dashboards:${providers.providers[0].options.path}:ro`), 'dashboards mounted where the provider reads them');
    assert.equal(compose.services.grafana.environment.GF_SERVER_HTTP_ADDR, '127.0.0.1');
    for (const s of ['prometheus', 'grafana']) assert.match(compose.services[s].image, /:v?\d+\.\d+\.\d+$/, `${s} image pinned`);
  });
});
