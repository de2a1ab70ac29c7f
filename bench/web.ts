// The bench web in its own process (so a crawler's RSS and CPU never include it), and what its request
// log says about a crawl: the server is the arbiter of how many pages were fetched and how politely.
// The server is bench/bench-server.ts: pages pre-rendered and served from memory, so that it costs almost
// nothing per page and leaves the cores to the crawler measured.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { WebKind } from './bench-pages.js';
import { cpuSecondsOf, round } from './proc.js';

export interface WebStats {
  /** Requests for pages of the bench web (robots.txt and 404s excluded). */
  pageRequests: number;
  /** Requests answered 404 (sitemaps and other paths that are not pages), path → count. */
  otherRequests?: Record<string, number>;
  /** Distinct (host, path) pairs among them: pages fetched more than once count once. */
  distinctPages: number;
  robotsRequests: number;
  /** Status → count, page requests only. */
  statuses: Record<string, number>;
  /** From the first request's start to the last one's end, seconds. */
  activeSeconds: number;
  /**
   * Most requests one host received within any one second (request starts, robots.txt included): what a
   * site owner sees of the crawler's politeness. The server answers each request synchronously on one
   * thread, so its log cannot show two requests of one host overlapping; a burst shows up here instead.
   */
  peakRequestsPerHostPerSecond: number;
  /**
   * Most TCP connections open to one host at once (idle keep-alive ones included, so more than one does
   * not by itself mean more than one request in flight), sampled from /proc/net/tcp every 250 ms. The server
   * answers each request synchronously on one thread, so its own log cannot show overlapping requests;
   * open connections show how many requests a crawler keeps going to one host.
   */
  maxConnectionsPerHost: number;
  /** Most connections open to the whole web at once (sampled likewise). */
  maxConnectionsTotal: number;
  /**
   * Per host, the time from the end of one request to the start of the next (robots.txt included), ms:
   * how long a crawler leaves a host idle between its requests. With one request per host at a time this
   * round trip through the crawler (completion → schedule → release → fetch) bounds pages/s per host.
   */
  hostGapMs?: { p50: number; p90: number } | null;
  /** Hosts that received a page request before their robots.txt request ended (robots.txt not read first). */
  hostsPageBeforeRobots: number;
  hosts: number;
  /** CPU the server process used while the crawl ran, seconds (tells whether the server was the limit). */
  serverCpuSeconds: number;
}

export interface WebOptions {
  /** Which pages (default 'bench'). */
  kind?: WebKind;
  /** How many root URLs to give the crawler as seeds (default every origin's root). */
  seeds?: number;
  /** Serve HTTPS with a CA made in this directory (BenchWeb.caFile names its certificate). */
  tlsDir?: string;
}

export interface BenchWeb {
  port: number;
  origins: string[];
  /** The roots of the first `seeds` origins: the rest are found through cross-host links. */
  seeds: string[];
  /** Seconds the server spent rendering its pages before it listened (not part of any measurement). */
  renderSeconds: number;
  /** The CA certificate to trust, when the web serves HTTPS. */
  caFile?: string;
  pid: number;
  /** Stops the server and reads its request log. */
  stop(): Promise<WebStats>;
  /** Kills the server without reading its log (error paths). */
  abort(): Promise<void>;
}

interface LogLine {
  host: string;
  path: string;
  startedAt: number;
  endedAt: number | null;
  status: number;
}

export async function startWeb(distDir: string, hosts: number, pages: number, logDir: string, opts: WebOptions = {}): Promise<BenchWeb> {
  const logFile = join(logDir, `web-${process.pid}-${Date.now()}.jsonl`);
  const args = [join(distDir, 'bench/bench-server.js'), '--kind', opts.kind ?? 'bench', '--hosts', String(hosts), '--pages', String(pages), '--log', logFile,
    ...(opts.tlsDir ? ['--tls-dir', opts.tlsDir] : [])];
  const child = spawn(process.execPath, args, {
    // stdin stays a pipe: if the harness dies, the server sees it close and exits.
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await firstLine(child);
  const info = JSON.parse(line) as { port: number; seeds: string[]; origins: string[]; renderSeconds: number; caFile?: string };
  const cpuAtStart = cpuSecondsOf(child.pid!) ?? 0;
  const connections = sampleConnections(info.port);
  return {
    ...info,
    seeds: info.seeds.slice(0, opts.seeds ?? info.seeds.length),
    pid: child.pid!,
    stop: async () => {
      const cpuAtEnd = cpuSecondsOf(child.pid!) ?? cpuAtStart;
      const conns = connections.stop();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      const stats = analyzeLog(readFileSync(logFile, 'utf8'));
      rmSync(logFile, { force: true });
      return { ...stats, ...conns, serverCpuSeconds: round(cpuAtEnd - cpuAtStart, 2) };
    },
    abort: async () => {
      connections.stop();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        child.stdout!.off('data', onData);
        resolve(out.slice(0, nl));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`bench web exited with ${code} before listening`)));
  });
}

/** Established connections whose local (server) end is on `port`, counted per local address. */
function sampleConnections(port: number): { stop(): { maxConnectionsPerHost: number; maxConnectionsTotal: number } } {
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let perHost = 0;
  let total = 0;
  const sample = () => {
    let text: string;
    try {
      text = readFileSync('/proc/net/tcp', 'utf8');
    } catch {
      return;
    }
    const counts = new Map<string, number>();
    let all = 0;
    // Lines look like "  12: 0114007F:B0C5 0100007F:9C40 01 …": local address, remote address, state (01 = ESTABLISHED).
    // Cheap string checks only: this runs beside the measured crawler and must not steal its CPU.
    for (let at = text.indexOf(portHex); at !== -1; at = text.indexOf(portHex, at + 1)) {
      if (text.charCodeAt(at - 9) !== 32 || text.slice(at + 19, at + 23) !== ' 01 ') continue;
      const local = text.slice(at - 8, at);
      counts.set(local, (counts.get(local) ?? 0) + 1);
      all++;
    }
    for (const n of counts.values()) perHost = Math.max(perHost, n);
    total = Math.max(total, all);
  };
  const timer = setInterval(sample, 250);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { maxConnectionsPerHost: perHost, maxConnectionsTotal: total };
    },
  };
}

/** Median and 90th percentile, ms (null without data). */
function quantiles(values: number[]): { p50: number; p90: number } | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const q = (p: number) => round(v[Math.min(v.length - 1, Math.floor(p * v.length))], 1);
  return { p50: q(0.5), p90: q(0.9) };
}

export function analyzeLog(text: string): Omit<WebStats, 'serverCpuSeconds' | 'maxConnectionsPerHost' | 'maxConnectionsTotal'> {
  const lines: LogLine[] = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine);
  const byHost = new Map<string, LogLine[]>();
  const statuses: Record<string, number> = {};
  const distinct = new Set<string>();
  let pageRequests = 0;
  let robotsRequests = 0;
  const otherRequests: Record<string, number> = {};
  let first = Infinity;
  let last = -Infinity;
  for (const l of lines) {
    const end = l.endedAt ?? l.startedAt;
    first = Math.min(first, l.startedAt);
    last = Math.max(last, end);
    const list = byHost.get(l.host) ?? [];
    list.push(l);
    byHost.set(l.host, list);
    if (l.path === '/robots.txt') {
      robotsRequests++;
      continue;
    }
    if (l.status === 404) {
      otherRequests[l.path] = (otherRequests[l.path] ?? 0) + 1;
      continue;
    }
    pageRequests++;
    distinct.add(`${l.host} ${l.path}`);
    statuses[l.status] = (statuses[l.status] ?? 0) + 1;
  }
  let pageBeforeRobots = 0;
  let peakPerSecond = 0;
  const gaps: number[] = [];
  for (const list of byHost.values()) {
    const starts = list.map((l) => l.startedAt).sort((a, b) => a - b);
    const byStart = [...list].sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < byStart.length; i++) {
      const prevEnd = byStart[i - 1].endedAt;
      if (prevEnd !== null) gaps.push(byStart[i].startedAt - prevEnd);
    }
    for (let i = 0, j = 0; i < starts.length; i++) {
      while (starts[i] - starts[j] >= 1000) j++;
      peakPerSecond = Math.max(peakPerSecond, i - j + 1);
    }
    const robots = list.filter((l) => l.path === '/robots.txt').map((l) => l.endedAt ?? Infinity);
    const firstPage = Math.min(...list.filter((l) => l.path !== '/robots.txt').map((l) => l.startedAt));
    if (robots.length === 0 || Math.min(...robots) > firstPage) pageBeforeRobots++;
  }
  return {
    pageRequests,
    otherRequests,
    distinctPages: distinct.size,
    robotsRequests,
    statuses,
    activeSeconds: lines.length ? round((last - first) / 1000, 2) : 0,
    peakRequestsPerHostPerSecond: peakPerSecond,
    hostGapMs: quantiles(gaps),
    hostsPageBeforeRobots: pageBeforeRobots,
    hosts: byHost.size,
  };
}
