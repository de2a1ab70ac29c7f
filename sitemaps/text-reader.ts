// Plain-text sitemaps (sitemaps.org "Text file"): one URL per line, UTF-8, nothing else. Lines end with
// \n, \r\n or \r. A line is kept only up to a cap; the rest of an over-long line is skipped unread, so a
// file without newlines cannot make the reader hold more than the cap.
import { MAX_URL_LENGTH } from './location-rule.js';

/** Whitespace allowed around a URL on its line beyond the URL length cap. */
const LINE_SLACK = 256;
const LINE_CAP = MAX_URL_LENGTH + LINE_SLACK;

export interface TextSink {
  /** A non-blank line, trimmed; tooLong when it was cut at the cap. */
  line(text: string, tooLong: boolean): void;
}

export class TextSitemapReader {
  private line = '';
  private tooLong = false;
  private afterCr = false;
  private stopped = false;

  constructor(private readonly sink: TextSink) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  write(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length && !this.stopped; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      this.append(text, start, i);
      // The \n of a \r\n pair, possibly split across writes, ends nothing.
      if (!(c === 0x0a && this.afterCr && start === i)) this.flush();
      this.afterCr = c === 0x0d;
      start = i + 1;
    }
    if (this.stopped) return;
    if (start < text.length) {
      this.afterCr = false;
      this.append(text, start, text.length);
    }
  }

  end(): void {
    if (!this.stopped) this.flush();
    this.stopped = true;
  }

  stop(): void {
    this.stopped = true;
  }

  private append(text: string, from: number, to: number): void {
    if (this.tooLong || from === to) return;
    const room = LINE_CAP - this.line.length;
    if (to - from > room) {
      this.line += text.slice(from, from + room);
      this.tooLong = true;
    } else this.line += text.slice(from, to);
  }

  private flush(): void {
    const line = this.line.trim();
    const tooLong = this.tooLong || line.length > MAX_URL_LENGTH;
    this.line = '';
    this.tooLong = false;
    if (line !== '' || tooLong) this.sink.line(tooLong ? '' : line, tooLong);
  }
}
