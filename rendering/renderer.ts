// A bounded pool of headless renders on one system Chromium: at most `concurrency` pages at once,
// each in a fresh browser context. A browser that crashed, or that could not close a context in
// time, is replaced on the next render. The browser's proxy is a sinkhole on loopback, so a request
// that escapes interception is counted instead of reaching the network. Interception alone is not
// enough: without the proxy, the tests see Chromium open TCP connections of its own to the hosts
// of intercepted requests (preconnects), which would bypass the crawler's per-host politeness.
import type { Browser } from 'playwright-core';
import { findChromium } from './find-chromium.js';
import { renderPage, type FetchForBrowser, type PageOptions, type RenderResult } from './render-page.js';
import { SinkholeProxy } from './sinkhole-proxy.js';

export interface RendererOptions {
  /** Default: $CRAWLSTREAM_CHROMIUM, then chromium, chromium-browser or google-chrome on $PATH. */
  chromiumPath?: string;
  concurrency?: number;
  /** The bound on one render, from the moment it gets a slot. */
  timeoutMs?: number;
  settleMs?: number;
  /** Never passed to fetchForBrowser; counted in `blocked`. Default image, font, media. */
  blockedResourceTypes?: string[];
  maxSubrequests?: number;
  maxHtmlBytes?: number;
  maxTextBytes?: number;
  maxLinks?: number;
  /** Let iframes load their documents through fetchForBrowser (default: blocked and recorded). */
  allowSubframes?: boolean;
  closeTimeoutMs?: number;
  launchTimeoutMs?: number;
  userAgent?: string;
  /** Where the renderer says what went wrong outside any one page (escaped requests, relaunches). */
  warn?: (line: string) => void;
  /** Chromium writes its network log here (tests, and finding out what a browser sent): every socket, DNS query and datagram. */
  netLogPath?: string;
}

export interface RendererStats {
  rendered: number;
  failed: number;
  browserLaunches: number;
  browserCrashes: number;
  /** Browsers killed because a context would not close. */
  browserReplacements: number;
  /** Connections that reached the sinkhole proxy: traffic that escaped request interception. */
  escapedConnections: number;
}

// The flags the crawler needs (--headless, --no-sandbox, … --disable-sync) plus the sinkhole proxy,
// also for loopback (Chromium bypasses proxies for loopback unless told '<-loopback>'). No UDP may
// leave the browser, as it would go around the proxy and the network policy: WebRTC is kept off UDP
// (--force-webrtc-ip-handling-policy alone still let STUN and TURN through; --webrtc-ip-handling-policy
// stops them), and every host name the browser itself would resolve (a STUN server's, a
// dns-prefetch) is answered "not found" without a DNS query; the proxy is an address, not a name.
// The init script removes the WebRTC APIs from pages as well (page-scripts.ts). Playwright adds its
// own defaults and a fresh temporary --user-data-dir for every launch.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--proxy-bypass-list=<-loopback>', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  // A page's script heap is bounded; a page that exhausts it crashes alone and is reported.
  '--js-flags=--max-old-space-size=512'];

export class Renderer {
  private readonly counts = { rendered: 0, failed: 0, browserLaunches: 0, browserCrashes: 0, browserReplacements: 0 };
  private readonly pageOptions: PageOptions;
  private readonly concurrency: number;
  private readonly warn: (line: string) => void;
  private readonly sinkhole: SinkholeProxy;
  private proxyUrl?: Promise<string>;
  private browser?: Promise<Browser>;
  private active = 0;
  private readonly waiting: ((go: boolean) => void)[] = [];
  private closed = false;
  private readonly escapedHosts = new Set<string>();

  get stats(): RendererStats {
    return { ...this.counts, escapedConnections: this.sinkhole.connections };
  }

  constructor(private readonly options: RendererOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.warn = options.warn ?? ((line) => console.warn(`renderer: ${line}`));
    this.pageOptions = {
      timeoutMs: options.timeoutMs ?? 15_000,
      settleMs: options.settleMs ?? 100,
      blockedResourceTypes: new Set(options.blockedResourceTypes ?? ['image', 'font', 'media']),
      maxSubrequests: options.maxSubrequests ?? 200,
      maxHtmlBytes: options.maxHtmlBytes ?? 5 * 1024 * 1024,
      maxTextBytes: options.maxTextBytes ?? 100 * 1024,
      maxLinks: options.maxLinks ?? 5000,
      allowSubframes: options.allowSubframes ?? false,
      closeTimeoutMs: options.closeTimeoutMs ?? 5000,
      userAgent: options.userAgent,
    };
    this.sinkhole = new SinkholeProxy((line) => {
      // Chromium's own services (update checks, account look-ups) knock again for every context:
      // each target is told once, the counter tells the rest.
      const host = (line.split(' ')[1] ?? line).replace(/^[a-z]+:\/\//i, '').split(/[/:]/)[0];
      if (this.escapedHosts.size >= 100 || this.escapedHosts.has(host)) return;
      this.escapedHosts.add(host);
      this.warn(`a request escaped interception and was stopped at the sinkhole proxy (told once per host): ${line}`);
    });
  }

  /**
   * Renders `html`, the crawler's copy of `url`, and returns the DOM after scripts ran. Never rejects:
   * every failure is an outcome with `error` set. `timeoutMs` overrides the renderer's bound.
   */
  async render(url: string, html: string, fetchForBrowser: FetchForBrowser, options: { timeoutMs?: number } = {}): Promise<RenderResult> {
    if (!(await this.acquire())) return failure('closed: the renderer is closed');
    try {
      let browser: Browser;
      try {
        browser = await this.currentBrowser();
      } catch (err) {
        this.counts.failed++;
        return failure(`browser-unavailable: ${(err as Error).message.split('\n')[0]}`);
      }
      const pageOptions = { ...this.pageOptions, timeoutMs: options.timeoutMs ?? this.pageOptions.timeoutMs };
      const { result, closedCleanly } = await renderPage(browser, url, html, fetchForBrowser, pageOptions);
      if (!closedCleanly) {
        this.counts.browserReplacements++;
        this.warn(`a browser context did not close within ${this.pageOptions.closeTimeoutMs} ms; replacing the browser`);
        await this.dropBrowser(browser);
      }
      if (result.error) this.counts.failed++;
      else this.counts.rendered++;
      return result;
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w(false);
    const browser = this.browser;
    this.browser = undefined;
    if (browser) await browser.then((b) => closeBrowser(b, this.pageOptions.closeTimeoutMs), () => {});
    await this.sinkhole.close();
  }

  private async acquire(): Promise<boolean> {
    if (this.closed) return false;
    if (this.active < this.concurrency) {
      this.active++;
      return true;
    }
    // release() hands its slot straight to the next waiter, so `active` stays counted.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next(true);
    else this.active--;
  }

  private currentBrowser(): Promise<Browser> {
    if (!this.browser) {
      const launching = this.launch();
      this.browser = launching;
      // A failed launch is not cached: the next render tries again.
      launching.catch(() => {
        if (this.browser === launching) this.browser = undefined;
      });
    }
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    const executablePath = findChromium(this.options.chromiumPath);
    if (!executablePath) throw new Error('no Chromium found: pass chromiumPath, set CRAWLSTREAM_CHROMIUM or put chromium on PATH');
    this.proxyUrl ??= this.sinkhole.start();
    const proxy = await this.proxyUrl;
    // Loaded on the first render, not with the crawler: Playwright is ~28 MB of heap (and its code) that a
    // crawl which never renders would carry for its whole life.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      chromiumSandbox: false,
      args: [...CHROMIUM_FLAGS, `--proxy-server=${proxy}`, ...(this.options.netLogPath ? [`--log-net-log=${this.options.netLogPath}`] : [])],
      timeout: this.options.launchTimeoutMs ?? 30_000,
      // The crawler shuts down in its own order (renderer.close()); Playwright still kills the
      // browser if the process exits without it.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.counts.browserLaunches++;
    const launched = this.browser;
    browser.on('disconnected', () => {
      if (this.browser === launched) this.browser = undefined;
      if (!this.closed && !replaced.has(browser)) {
        this.counts.browserCrashes++;
        this.warn('the browser went away; the next render launches a new one');
      }
    });
    return browser;
  }

  private async dropBrowser(browser: Browser): Promise<void> {
    replaced.add(browser);
    const current = this.browser;
    if (current && (await current.catch(() => undefined)) === browser) this.browser = undefined;
    await closeBrowser(browser, this.pageOptions.closeTimeoutMs);
  }
}

const replaced = new WeakSet<Browser>();

/** Playwright kills the browser process when a graceful close does not finish. */
async function closeBrowser(browser: Browser, ms: number): Promise<void> {
  const timer = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  await Promise.race([browser.close().catch(() => {}), timer]);
}

function failure(error: string): RenderResult {
  return { html: '', subrequests: [], unrecorded: 0, blocked: {}, navigations: [], error, elapsedMs: 0 };
}
