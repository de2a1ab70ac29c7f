// Code that runs inside the rendered page rather than in Node.

export const REPORT = '__crawlstreamReport';

// WebRTC peer connections are refused and recorded (their UDP would bypass the crawler); requests
// of shared workers and of downloads started by <a download> are not intercepted by request
// routing (they would go straight to the network stack, where the sinkhole proxy stops them), and
// service workers are blocked by the context option: all three are stopped in the page first, and
// recorded with their URL. The click listener is registered before any script of the page, so it
// runs first among the capturing listeners of the window.
export const INIT_SCRIPT = `(() => {
  const report = (kind, url) => { try { window.${REPORT}(kind, String(new URL(url, location.href))); } catch {} };
  const refuse = () => new DOMException('blocked by the crawler', 'SecurityError');
  window.addEventListener('click', (e) => {
    const a = e.target && e.target.closest && e.target.closest('a[download], area[download]');
    if (a && a.href) { e.preventDefault(); report('download', a.href); }
  }, true);
  // The load event of the top document, told from here because Playwright's own load tracking
  // waits forever once a later navigation was started and aborted.
  if (window === window.top) window.addEventListener('load', () => report('load', location.href), { once: true });
  // A popup never opens: the attempt is told through the same channel as the load event, so it is
  // recorded before the page counts as loaded. (Popups opened otherwise, by target=_blank, are closed
  // by the renderer when they appear.)
  window.open = function open(url) { report('popup', url === undefined || url === '' ? 'about:blank' : url); return null; };
  if (typeof ServiceWorkerContainer !== 'undefined')
    ServiceWorkerContainer.prototype.register = function (url) { report('service-worker', url); return Promise.reject(refuse()); };
  if (typeof SharedWorker !== 'undefined')
    window.SharedWorker = function SharedWorker(url) { report('shared-worker', url); throw refuse(); };
  // WebRTC would send UDP (STUN, TURN, ICE checks) around the crawler: a peer connection is refused
  // and recorded with the servers it named; the other RTC interfaces are removed.
  const rtc = function RTCPeerConnection(config) {
    const urls = [];
    for (const s of (config && config.iceServers) || []) for (const u of [].concat((s && s.urls) || [])) urls.push(String(u));
    for (const u of urls.length ? urls.slice(0, 10) : ['webrtc:' + location.href]) report('webrtc', u);
    throw refuse();
  };
  for (const name of Object.getOwnPropertyNames(window)) {
    if (!/^(webkit)?RTC/.test(name)) continue;
    try { Object.defineProperty(window, name, { value: /PeerConnection$/.test(name) ? rtc : undefined, configurable: false, writable: false }); } catch {}
  }
})();`;

/** Runs in the page (the project compiles without DOM types, hence the loose typing). */
export function extractDom({ maxHtmlChars, maxTextChars, maxLinks }: { maxHtmlChars: number; maxTextChars: number; maxLinks: number }) {
  const document = (globalThis as any).document;
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : '';
  const html = doctype + (document.documentElement ? document.documentElement.outerHTML : '');
  const links: string[] = [];
  const seen = new Set<string>();
  for (const a of Array.from(document.querySelectorAll('a[href], area[href]')) as { href: unknown }[]) {
    const href = a.href;
    if (typeof href !== 'string' || !/^https?:/i.test(href) || seen.has(href)) continue;
    seen.add(href);
    links.push(href);
    if (links.length >= maxLinks) break;
  }
  const text = document.body ? document.body.innerText : '';
  return { html: html.slice(0, maxHtmlChars), text: text.slice(0, maxTextChars), links };
}
