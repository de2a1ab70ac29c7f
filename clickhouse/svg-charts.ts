// Hand-drawn inline SVG charts for the crawl report: no scripts, fonts or external references, so
// the report is one file that opens anywhere (and offline).

export interface Bar {
  label: string;
  value: number;
  color?: string;
  /** Shown after the value, e.g. "3 errors". */
  note?: string;
}

export interface TimePoint {
  t: number;
  bars: number;
  line: number;
}

const WIDTH = 680;
const FONT = 'font-family="system-ui, sans-serif" font-size="12"';
export const PALETTE = { bar: '#4c78a8', line: '#f58518', grid: '#e3e3e3', text: '#333', muted: '#777' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Horizontal bars, one per row, labels on the left and values at the bar's end. */
export function barChart(bars: Bar[], opts: { format?: (n: number) => string } = {}): string {
  if (bars.length === 0) return emptyChart();
  const format = opts.format ?? formatCount;
  const labelWidth = Math.min(260, Math.max(60, ...bars.map((b) => textWidth(b.label) + 8)));
  const values = bars.map((b) => format(b.value) + (b.note ? ` · ${b.note}` : ''));
  // The value text sits after the longest bar; the chart widens rather than clip it.
  const valueWidth = Math.max(...values.map(textWidth)) + 12;
  const plot = Math.max(200, WIDTH - labelWidth - valueWidth);
  const width = labelWidth + plot + valueWidth;
  const rowHeight = 22;
  const height = bars.length * rowHeight + 8;
  const max = Math.max(...bars.map((b) => b.value), 1);
  const rows = bars.map((b, i) => {
    const y = 4 + i * rowHeight;
    const w = Math.max(b.value > 0 ? 2 : 0, (b.value / max) * plot);
    const label = truncate(b.label, Math.floor((labelWidth - 8) / 6.6));
    return `<g><title>${escapeHtml(`${b.label}: ${values[i]}`)}</title>` +
      `<text x="${labelWidth - 6}" y="${y + 15}" text-anchor="end" fill="${PALETTE.text}">${escapeHtml(label)}</text>` +
      `<rect class="mark" x="${labelWidth}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowHeight - 6}" rx="2" fill="${b.color ?? PALETTE.bar}"/>` +
      `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 15}" fill="${PALETTE.muted}">${escapeHtml(values[i])}</text></g>`;
  });
  return svg(height, rows.join(''), width);
}

/** Roughly how wide 12 px system-ui text is; enough to lay out labels without measuring. */
function textWidth(s: string): number {
  return Math.ceil(s.length * 6.6);
}

/** Bars per time bucket (left axis) with a line over them (right axis). */
export function timeChart(points: TimePoint[], opts: { barsLabel: string; lineLabel: string; formatLine?: (n: number) => string }): string {
  if (points.length === 0) return emptyChart();
  const formatLine = opts.formatLine ?? formatCount;
  const left = 56, right = 76, top = 26, bottom = 28, height = 240;
  const plotW = WIDTH - left - right, plotH = height - top - bottom;
  const t0 = points[0].t, t1 = points.at(-1)!.t;
  const step = points.length > 1 ? Math.min(...points.slice(1).map((p, i) => p.t - points[i].t)) : 1000;
  const span = Math.max(t1 - t0 + step, 1);
  const x = (t: number) => left + ((t - t0) / span) * plotW;
  const maxBars = niceMax(Math.max(...points.map((p) => p.bars)));
  const maxLine = niceMax(Math.max(...points.map((p) => p.line)));
  const yBars = (v: number) => top + plotH - (v / maxBars) * plotH;
  const yLine = (v: number) => top + plotH - (v / maxLine) * plotH;
  const barW = Math.max(1, (step / span) * plotW - 1);
  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const y = top + (plotH * i) / 4;
    parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${y}" y2="${y}" stroke="${PALETTE.grid}"/>`);
    parts.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="${PALETTE.bar}">${formatCount((maxBars * (4 - i)) / 4)}</text>`);
    parts.push(`<text x="${left + plotW + 6}" y="${y + 4}" fill="${PALETTE.line}">${escapeHtml(formatLine((maxLine * (4 - i)) / 4))}</text>`);
  }
  for (const p of points) {
    const y = yBars(p.bars);
    parts.push(`<rect class="mark" x="${x(p.t).toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${(top + plotH - y).toFixed(1)}" fill="${PALETTE.bar}" opacity="0.85"><title>${escapeHtml(`${formatTime(p.t, span)}: ${formatCount(p.bars)} ${opts.barsLabel}, ${formatLine(p.line)} ${opts.lineLabel}`)}</title></rect>`);
  }
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${(x(p.t) + barW / 2).toFixed(1)},${yLine(p.line).toFixed(1)}`).join('');
  parts.push(`<path class="mark" d="${path}" fill="none" stroke="${PALETTE.line}" stroke-width="2"/>`);
  if (points.length === 1) parts.push(`<circle class="mark" cx="${(x(t0) + barW / 2).toFixed(1)}" cy="${yLine(points[0].line).toFixed(1)}" r="3" fill="${PALETTE.line}"/>`);
  for (let i = 0; i <= 4; i++) {
    const t = t0 + (span * i) / 4;
    parts.push(`<text x="${x(t).toFixed(1)}" y="${height - 8}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}" fill="${PALETTE.muted}">${formatTime(t, span)}</text>`);
  }
  parts.push(`<text x="${left}" y="14" fill="${PALETTE.bar}">■ ${escapeHtml(opts.barsLabel)}</text>`);
  parts.push(`<text x="${left + plotW}" y="14" text-anchor="end" fill="${PALETTE.line}">— ${escapeHtml(opts.lineLabel)}</text>`);
  return svg(height, parts.join(''));
}

function svg(height: number, body: string, width = WIDTH): string {
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" ${FONT}>${body}</svg>`;
}

function emptyChart(): string {
  return svg(40, `<text x="8" y="24" fill="${PALETTE.muted}">no data yet</text>`);
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(1, max - 1))}…`;
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(v));
  // Quarters of these read as round numbers on the four grid lines.
  return ([1, 2, 4, 8, 10].find((m) => m * magnitude >= v) ?? 10) * magnitude;
}

export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (Math.abs(n) >= 1e9) return `${+(n / 1e9).toFixed(1)}G`;
  if (Math.abs(n) >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (Math.abs(n) >= 1e4) return `${+(n / 1e3).toFixed(1)}k`;
  return `${+n.toFixed(n % 1 === 0 ? 0 : 1)}`;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (Math.abs(n) >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${+n.toFixed(n >= 100 || i === 0 ? 0 : 1)} ${units[i]}`;
}

export function formatMs(n: number): string {
  if (Math.abs(n) >= 60_000) return `${+(n / 60_000).toFixed(1)} min`;
  if (Math.abs(n) >= 1000) return `${+(n / 1000).toFixed(2)} s`;
  return `${Math.round(n)} ms`;
}

/** UTC, with as much precision as the span needs. */
export function formatTime(ms: number, span: number): string {
  const iso = new Date(ms).toISOString();
  if (span < 60 * 60_000) return iso.slice(11, 19);
  if (span < 86_400_000) return iso.slice(11, 16);
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}
