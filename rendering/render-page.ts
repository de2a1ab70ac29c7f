// Renders one page in a fresh browser context. The browser never fetches anything itself: every
// request is intercepted and either blocked here (images, fonts, media, popups, downloads, other
// documents, non-GET methods) or handed to the crawler's fetchForBrowser, which applies robots.txt,
// per-host politeness and the network policy, and answers with a body or a refusal.
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { truncateUtf8 } from '../pdf/truncate-utf8.js';
import { extractDom, INIT_SCRIPT, REPORT } from './page-scripts.js';

export interface BrowserRequest {
  url: string;
  method: string;
  resourceType: string;
  isNavigation: boolean;
}
export type BrowserResponse = { status: number; headers: Record<string, string>; body: Buffer } | { refused: string };
export type FetchForBrowser = (req: BrowserRequest) => Promise<BrowserResponse>;

export interface Subrequest {
  url: string;
  resourceType: string;
  /** 'served: …' (the crawler's copy of the page), 'fetched: <status>', 'refused: <reason>',
   * 'blocked: <kind>', 'failed: <error>', or 'unfinished: …' when the render ended first. */
  outcome: string;
}

export interface RenderResult {
  /** The serialized DOM after scripts ran; '' when it could not be read (see error). */
  html: string;
  /** Absolute http(s) hrefs of a and area elements in the rendered DOM. */
  links?: string[];
  text?: string;
  subrequests: Subrequest[];
  /** Requests not recorded in subrequests (and blocked) because maxSubrequests were recorded. */
  unrecorded: number;
  /** What was blocked, by kind: image, font, media, popup, download, navigation, subframe, websocket… */
  blocked: Record<string, number>;
  /** Documents the page tried to navigate to (script redirects, meta refresh, forms): links in effect. */
  navigations: string[];
  /** '' or '<kind>: detail'; kinds: timeout, unsettled, crashed, browser-crashed, browser-unavailable,
   * too-large, failed, closed. 'unsettled' comes with the DOM as it was at the time bound. */
  error: string;
  elapsedMs: number;
}

export interface PageOptions {
  timeoutMs: number;
  /** Quiet time (no request in flight) after the load event that counts as settled. */
  settleMs: number;
  blockedResourceTypes: ReadonlySet<string>;
  maxSubrequests: number;
  maxHtmlBytes: number;
  maxTextBytes: number;
  maxLinks: number;
  allowSubframes: boolean;
  closeTimeoutMs: number;
  userAgent?: string;
}

// Headers the browser must not see from a body the crawler already decoded and measured.
const DROPPED_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export interface PageOutcome {
  result: RenderResult;
  /** False when the context did not close within closeTimeoutMs: the browser should be replaced. */
  closedCleanly: boolean;
}

export async function renderPage(browser: Browser, url: string, html: string, fetchForBrowser: FetchForBrowser, opts: PageOptions): Promise<PageOutcome> {
  const started = performance.now();
  const session = new PageSession(url, html, fetchForBrowser, opts);
  let context: BrowserContext | undefined;
  let error = '';
  let dom: Extracted | undefined;
  let answered = true;
  const work = (async () => {
    context = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: false, userAgent: opts.userAgent, viewport: { width: 1280, height: 900 } });
    return session.run(context, started);
  })();
  work.catch(() => {});
  try {
    // run() bounds the page by timeoutMs; this bound is for a browser that stops answering at all
    // (a context or page that is never created).
    const outcome = await Promise.race([work, sleep(opts.timeoutMs + opts.closeTimeoutMs).then(() => undefined)]);
    if (outcome) ({ dom, error } = outcome);
    else {
      answered = false;
      error = `timeout: the browser did not answer within ${opts.timeoutMs + opts.closeTimeoutMs} ms`;
    }
  } catch (err) {
    error = browser.isConnected() ? `failed: ${message(err)}` : `browser-crashed: the browser went away (${message(err)})`;
  } finally {
    session.done = true;
  }
  const closedCleanly = answered && (context ? await closeWithin(context, opts.closeTimeoutMs) : true);
  const result = session.result(dom, error, started);
  return { result, closedCleanly };
}

interface Extracted {
  html: string;
  text: string;
  links: string[];
}

class PageSession {
  done = false;
  private readonly subrequests: Subrequest[] = [];
  private unrecorded = 0;
  private readonly blocked: Record<string, number> = {};
  private readonly navigations: string[] = [];
  private mainPage?: Page;
  private documentServed = false;
  private inflight = 0;
  private onInflightChange = () => {};
  private markLoaded = () => {};

  constructor(
    private readonly url: string,
    private readonly html: string,
    private readonly fetchForBrowser: FetchForBrowser,
    private readonly opts: PageOptions,
  ) {}

  async run(context: BrowserContext, started: number): Promise<{ dom?: Extracted; error: string }> {
    const loadEvent = new Promise<void>((resolve) => (this.markLoaded = resolve));
    await context.exposeBinding(REPORT, (source, kind: unknown, url: unknown) => {
      if (kind !== 'load') return this.block(String(kind), String(url), String(kind));
      if (source.page === this.mainPage && source.frame === this.mainPage?.mainFrame()) this.markLoaded();
    });
    await context.addInitScript(INIT_SCRIPT);
    await context.routeWebSocket(/.*/, (ws) => {
      this.block('websocket', ws.url(), 'websocket');
      void ws.close({ code: 1008, reason: 'blocked by the crawler' }).catch(() => {});
    });
    await context.route('**/*', (route) => this.onRoute(route));
    context.on('page', (page) => {
      if (!this.mainPage || page === this.mainPage) return;
      this.block('popup', page.url(), 'popup');
      void page.close().catch(() => {});
    });
    const page = await context.newPage();
    this.mainPage = page;
    page.on('download', (download) => {
      this.block('download', download.url(), 'download');
      void download.cancel().catch(() => {});
    });
    let crashed!: () => void;
    const crash = new Promise<'crashed'>((resolve) => (crashed = () => resolve('crashed')));
    page.on('crash', crashed);

    // The extraction gets a reserve of the time bound, so that a page that never settles still
    // yields its DOM; a page whose script never yields gets nothing either way.
    const reserve = Math.min(2000, Math.max(200, this.opts.timeoutMs * 0.2));
    const navDeadline = started + this.opts.timeoutMs - reserve;
    let loaded = false;
    const navigation = page.goto(this.url, { waitUntil: 'commit', timeout: 0 }).then(async () => {
      await loadEvent;
      loaded = true;
      await this.networkQuiet();
      return 'settled' as const;
    });
    navigation.catch(() => {});
    const stage = await Promise.race([navigation, crash, sleep(navDeadline - performance.now()).then(() => 'time' as const)]);
    if (stage === 'crashed') return { error: 'crashed: the page\'s renderer process died' };
    const extraction = page.evaluate(extractDom, {
      maxHtmlChars: this.opts.maxHtmlBytes + 1,
      maxTextChars: this.opts.maxTextBytes + 1,
      maxLinks: this.opts.maxLinks,
    });
    extraction.catch(() => {});
    const left = started + this.opts.timeoutMs - performance.now();
    const dom = await Promise.race([extraction, crash, sleep(Math.max(left, reserve / 2)).then(() => 'time' as const)]);
    if (dom === 'crashed') return { error: 'crashed: the page\'s renderer process died' };
    if (dom === 'time') return { error: `timeout: the page's scripts did not yield within ${this.opts.timeoutMs} ms (a script that never ends?)` };
    let error = '';
    if (stage === 'time') {
      error = loaded
        ? `unsettled: requests were still in flight after ${this.opts.timeoutMs - reserve} ms; the DOM is as it was then`
        : `timeout: the page did not finish loading in ${this.opts.timeoutMs - reserve} ms; the DOM is as it was then`;
    }
    const htmlCut = truncateUtf8(dom.html, this.opts.maxHtmlBytes);
    if (htmlCut.truncated) error ||= `too-large: the rendered HTML is over ${this.opts.maxHtmlBytes} bytes; it was cut`;
    return { dom: { html: htmlCut.text, text: truncateUtf8(dom.text, this.opts.maxTextBytes).text, links: dom.links }, error };
  }

  result(dom: Extracted | undefined, error: string, started: number): RenderResult {
    return {
      html: dom?.html ?? '',
      ...(dom ? { links: dom.links, text: dom.text } : {}),
      // Copies: answers that arrive after the render ended must not change a returned result.
      subrequests: this.subrequests.map((s) => ({
        ...s,
        outcome: s.outcome === 'pending' ? 'unfinished: the render ended before the crawler answered' : s.outcome,
      })),
      unrecorded: this.unrecorded,
      blocked: { ...this.blocked },
      navigations: [...this.navigations],
      error,
      elapsedMs: Math.round(performance.now() - started),
    };
  }

  private async onRoute(route: Route): Promise<void> {
    const req = route.request();
    const url = req.url();
    const type = req.resourceType();
    const isNavigation = req.isNavigationRequest();
    let page: Page | undefined;
    let topLevel = isNavigation;
    try {
      const frame = req.frame();
      topLevel = frame.parentFrame() === null;
      page = frame.page();
    } catch {
      // requests of workers have no frame; a popup's first request may come before its page exists
    }
    if (this.done) return abort(route, isNavigation ? 'aborted' : 'blockedbyclient');
    if (isNavigation && topLevel && page !== this.mainPage) return this.blockRoute(route, 'popup', url, type);
    if (page && page !== this.mainPage) return this.blockRoute(route, 'popup', url, type);
    if (isNavigation && topLevel) {
      if (!this.documentServed) {
        // The crawler already fetched the page: the browser gets that copy, not a second fetch.
        this.documentServed = true;
        this.record(url, type, 'served: the crawler\'s copy');
        return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: this.html }).catch(() => {});
      }
      if (this.navigations.length < this.opts.maxLinks) this.navigations.push(url);
      // A document that starts leaving while it is parsed never fires its load event in Chromium,
      // even when the navigation is aborted: what it has done so far is what there is to wait for.
      this.markLoaded();
      return this.blockRoute(route, 'navigation', url, type);
    }
    if (isNavigation && !this.opts.allowSubframes) return this.blockRoute(route, 'subframe', url, type);
    if (this.opts.blockedResourceTypes.has(type)) return this.blockRoute(route, type, url, type);
    const method = req.method();
    if (method !== 'GET' && method !== 'HEAD') return this.blockRoute(route, `method ${method}`, url, type);
    const entry = this.record(url, type, 'pending');
    if (!entry) return abort(route);
    this.inflight++;
    try {
      const answer = await this.fetchForBrowser({ url, method, resourceType: type, isNavigation });
      if ('refused' in answer) {
        entry.outcome = `refused: ${answer.refused}`;
        await abort(route);
      } else {
        entry.outcome = `fetched: ${answer.status}`;
        await route.fulfill({ status: answer.status, headers: browserHeaders(answer.headers), body: answer.body });
      }
    } catch (err) {
      // A failed fulfill (the page or context is gone) after a good answer keeps the fetch outcome.
      if (entry.outcome === 'pending') entry.outcome = `failed: ${message(err)}`;
      await abort(route, 'failed');
    } finally {
      this.inflight--;
      this.onInflightChange();
    }
  }

  private blockRoute(route: Route, kind: string, url: string, type: string): Promise<void> {
    this.block(kind, url, type);
    // A document request failed as "blocked by client" commits Chromium's error page in place of the
    // page being rendered; an aborted one leaves the current document alone.
    return abort(route, route.request().isNavigationRequest() ? 'aborted' : 'blockedbyclient');
  }

  private block(kind: string, url: string, type: string): void {
    this.blocked[kind] = (this.blocked[kind] ?? 0) + 1;
    this.record(url, type, `blocked: ${kind}`);
  }

  private record(url: string, resourceType: string, outcome: string): Subrequest | undefined {
    if (this.subrequests.length >= this.opts.maxSubrequests) {
      this.unrecorded++;
      return undefined;
    }
    const entry = { url: url.slice(0, 2000), resourceType, outcome };
    this.subrequests.push(entry);
    return entry;
  }

  /** Resolves once no request has been in flight for settleMs. */
  private networkQuiet(): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.onInflightChange = () => {
        clearTimeout(timer);
        if (this.inflight === 0) timer = setTimeout(() => this.inflight === 0 && resolve(), this.opts.settleMs).unref();
      };
      this.onInflightChange();
    });
  }
}

function browserHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!DROPPED_HEADERS.has(k.toLowerCase())) out[k] = String(v);
  return out;
}

function abort(route: Route, reason: 'blockedbyclient' | 'aborted' | 'failed' = 'blockedbyclient'): Promise<void> {
  return route.abort(reason).catch(() => {});
}

async function closeWithin(context: BrowserContext, ms: number): Promise<boolean> {
  const closed = context.close().then(() => true, () => true);
  return Promise.race([closed, sleep(ms).then(() => false)]);
}

function sleep(ms: number): Promise<void> {
  // unref: a bound that lost its race must not keep the process alive.
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}

function message(err: unknown): string {
  return ((err as Error)?.message ?? String(err)).split('\n')[0].slice(0, 300);
}
