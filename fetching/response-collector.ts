// The undici dispatch handler behind one fetch: it counts and caps wire bytes, feeds the streaming
// decoder, and turns every way a request can end into exactly one result. Whoever decides first wins
// (a cap, the decoder, a timer, the caller's abort, undici's end or error); later signals are ignored.
import { isUtf8 } from 'node:buffer';
import type { Dispatcher } from 'undici';
import { connectionResetInProgress } from './connection-guard.js';
import { ContentDecoder, parseContentEncoding } from './content-decoder.js';
import { parseResponseHead, type ResponseHead } from './response-head.js';
import { describeCertificateProblem, isCertificateError } from './tls-policy.js';
import { PROXY_ERROR } from './proxy-connector.js';

/**
 * Why a fetch failed. After a response started, every kind but '' means the body is not whole:
 * 'body-too-large' and 'decompression-bomb' are our own caps, or a body sink's (the outcome says truncated);
 * 'body-incomplete' is a body the server or the network cut short (reset, closed before the
 * Content-Length or the last chunk); 'timeout' and 'aborted' stopped it mid-way; 'sink' is a body
 * sink that threw. The partial body and the status are kept in every case.
 */
export type ErrorKind = '' | 'timeout' | 'connect' | 'dns' | 'network-refused' | 'body-too-large'
  | 'decompression-bomb' | 'bad-encoding' | 'protocol' | 'aborted' | 'body-incomplete' | 'sink' | 'tls' | 'proxy';

export interface Collected {
  status: number;
  errorKind: ErrorKind;
  error: string;
  head: ResponseHead | null;
  /** The reason phrase of the status line ('' when none or no response). */
  statusText: string;
  /** Response header lines as received: order, case and repeats kept (undici bounds their total size). */
  rawHeaders: [string, string][];
  body: Buffer;
  /** Decoded bytes, whether kept in `body` or handed to a sink. */
  bytes: number;
  wireBytes: number;
  /** Cut at our own size cap (wire or decoded); an incomplete body has an error instead. */
  truncated: boolean;
  /** Hex SHA-1 of the decoded bytes when asked for and a response arrived, else ''. */
  sha1: string;
  ttfbMs: number;
}

export interface CollectorContext {
  maxBodyBytes: number;
  startedAt: number; // performance.now() at the start
  describeTarget: string; // "host:port" for messages
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** The request goes over TLS (a connect timeout then includes the handshake). */
  https?: boolean;
  /** Decoded chunks go here as they arrive instead of into `body`. */
  bodySink?: (chunk: Buffer) => unknown;
  sha1?: boolean;
}

const EMPTY = Buffer.alloc(0);
const EMPTY_SHA1 = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EADDRNOTAVAIL', 'ENETDOWN']);

export class ResponseCollector implements Dispatcher.DispatchHandler {
  /** Resolves with the result once it is decided and the decoder has flushed what it could. */
  readonly result: Promise<Collected>;
  /** Resolves when undici is done with the request, i.e. its socket is free again. */
  readonly settled: Promise<void>;
  private resolveResult!: (c: Collected) => void;
  private resolveSettled!: () => void;
  private controller: Dispatcher.DispatchController | null = null;
  private decided = false;
  private status = 0;
  private head: ResponseHead | null = null;
  private statusText = '';
  private rawHeaders: [string, string][] = [];
  private decoder: ContentDecoder | null = null;
  private wireBytes = 0;
  private ttfbMs = 0;
  private declaredLength = -1;

  constructor(private readonly ctx: CollectorContext) {
    this.result = new Promise((r) => (this.resolveResult = r));
    this.settled = new Promise((r) => (this.resolveSettled = r));
  }

  get isDecided(): boolean {
    return this.decided;
  }

  get responseStarted(): boolean {
    return this.status > 0;
  }

  /** Ends the request from outside (timer, caller abort); keeps the status and partial body. */
  stop(kind: ErrorKind, message: string): void {
    if (this.decided) return;
    this.decide(kind, message);
    this.controller?.abort(new Error(`${kind}: ${message}`));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // undici may start a request again after an earlier pipeline failure; the newest controller rules.
    this.controller = controller;
    if (this.decided) controller.abort(new Error('request already finished'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: unknown, statusMessage?: string): void {
    if (this.decided) return controller.abort(new Error('request already finished'));
    if (statusCode < 200) return; // interim 1xx responses (e.g. 103 Early Hints) carry no body
    this.status = statusCode;
    this.ttfbMs = performance.now() - this.ctx.startedAt;
    this.statusText = typeof statusMessage === 'string' ? statusMessage : '';
    const raw = rawHeaderList(controller.rawHeaders ?? headers);
    this.rawHeaders = headerLines(raw);
    this.head = parseResponseHead(raw);
    const length = Number(this.head.first('content-length'));
    if (Number.isSafeInteger(length) && length >= 0) this.declaredLength = length;
    const encoding = parseContentEncoding(this.head.joined('content-encoding'));
    if ('unsupported' in encoding) {
      this.stop('bad-encoding', `unsupported Content-Encoding "${encoding.unsupported}"`);
      return;
    }
    this.decoder = new ContentDecoder(encoding.codings, this.ctx.maxBodyBytes, (f) => this.stop(f.kind, f.message),
      { sink: this.ctx.bodySink, sha1: this.ctx.sha1 });
    this.decoder.onDrain(() => this.controller?.resume());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.decided || !this.decoder) return;
    const room = this.ctx.maxBodyBytes - this.wireBytes;
    this.wireBytes += chunk.length;
    if (chunk.length > room) {
      if (room > 0) this.decoder.write(chunk.subarray(0, room));
      const declared = this.declaredLength >= 0 ? `; Content-Length declared ${this.declaredLength}` : '';
      this.stop('body-too-large', `body exceeded the ${this.ctx.maxBodyBytes}-byte limit ` +
        `(stopped reading after ${this.wireBytes} wire bytes${declared})`);
      return;
    }
    // Decompression slower than the network: stop reading instead of queueing wire bytes in memory.
    if (!this.decoder.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.resolveSettled();
    if (this.decided) return;
    if (connectionResetInProgress() && this.status > 0) {
      // undici ends a body framed by the connection's close at a reset, too; only a clean close ends it.
      this.decide('body-incomplete', `the connection to ${this.ctx.describeTarget} was reset after ${this.wireBytes} body bytes ` +
        'of a body that only the connection\'s close delimits, so it cannot be known whole');
      return;
    }
    this.decide('', '');
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.resolveSettled();
    if (this.decided) return;
    const { kind, message } = this.classify(err);
    this.decide(kind, message);
  }

  private decide(kind: ErrorKind, message: string): void {
    this.decided = true;
    const decoder = this.decoder;
    const flushed = decoder ? decoder.finish(kind === '') : Promise.resolve();
    void flushed.then(() => {
      let k = kind;
      let m = message;
      // A decoder failure discovered while flushing the tail is the real outcome of a "complete" body.
      if (k === '' && decoder?.failure) ({ kind: k, message: m } = decoder.failure);
      decoder?.destroy();
      const hashed = this.ctx.sha1 && this.status > 0;
      this.resolveResult({
        status: this.status,
        errorKind: k,
        error: k ? `${k}: ${m}` : '',
        head: this.head,
        statusText: this.statusText,
        rawHeaders: this.rawHeaders,
        body: decoder ? decoder.body() : EMPTY,
        bytes: decoder ? decoder.bytes : 0,
        wireBytes: this.wireBytes,
        truncated: this.status > 0 && (k === 'body-too-large' || k === 'decompression-bomb'),
        sha1: !hashed ? '' : decoder ? decoder.sha1() : EMPTY_SHA1,
        ttfbMs: this.ttfbMs,
      });
    });
  }

  private describeIncomplete(code: string, detail: string): string {
    const declared = this.declaredLength >= 0 ? ` of the ${this.declaredLength} its Content-Length declared` : '';
    const why = code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ? 'the response ended short of its Content-Length'
      : /EOF/i.test(`${code} ${detail}`) ? 'the connection closed before the last chunk of a chunked body'
      : code === 'ECONNRESET' || /ECONNRESET/.test(detail) ? 'the connection was reset'
      : 'the connection closed before the body ended';
    return `${why}: got ${this.wireBytes} body bytes${declared} from ${this.ctx.describeTarget} (${code}: ${detail})`;
  }

  private classify(err: Error): { kind: ErrorKind; message: string } {
    const code = String((err as NodeJS.ErrnoException)?.code ?? '');
    const detail = err?.message || code || String(err);
    const target = this.ctx.describeTarget;
    const afterHeaders = this.status > 0;
    const got = `${this.wireBytes} body bytes`;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      const what = this.ctx.https ? 'connecting to (and the TLS handshake with)' : 'connecting to';
      return { kind: 'timeout', message: `${what} ${target} took longer than ${this.ctx.connectTimeoutMs} ms` };
    }
    if (code === PROXY_ERROR) return { kind: 'proxy', message: detail };
    if (isCertificateError(code)) return { kind: 'tls', message: `${describeCertificateProblem(code)} from ${target}` };
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      return { kind: 'timeout', message: `no response headers from ${target} within ${this.ctx.headersTimeoutMs} ms` };
    }
    if (code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'timeout', message: `body stalled after ${got}` };
    if (code === 'ETIMEDOUT') return { kind: 'timeout', message: `${target}: ${detail}` };
    if (code === 'ERR_NETWORK_REFUSED') return { kind: 'network-refused', message: detail };
    if (DNS_CODES.has(code)) return { kind: 'dns', message: detail };
    if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
      return { kind: 'aborted', message: 'the fetcher was closed' };
    }
    if (code === 'UND_ERR_INVALID_ARG') return { kind: 'protocol', message: `invalid request: ${detail}` };
    // llhttp reports a chunked body cut short as "Invalid EOF state": incomplete, not malformed.
    const parserError = code.startsWith('HPE_') || err?.name === 'HTTPParserError';
    const malformed = (parserError && !/EOF/i.test(`${code} ${detail}`)) || (code === 'UND_ERR_SOCKET' && /^bad /.test(detail))
      || code === 'ERR_ASSERTION'; // undici asserts on an unsolicited 101 Switching Protocols
    if (malformed) {
      const where = afterHeaders ? ` after ${got}` : '';
      return { kind: 'protocol', message: `invalid HTTP response from ${target}${where} (${code}: ${detail})` };
    }
    if (afterHeaders) return { kind: 'body-incomplete', message: this.describeIncomplete(code || err?.name, detail) };
    if (code.startsWith('HPE_') || err?.name === 'HTTPParserError' || code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'UND_ERR_INFO') {
      return { kind: 'protocol', message: `invalid HTTP response from ${target} (${code || err.name}: ${detail})` };
    }
    if (CONNECT_CODES.has(code)) return { kind: 'connect', message: `${detail} (${target})` };
    // Not the certificate: the handshake itself (a plain-HTTP server on an https URL, no shared cipher, a reset mid-way).
    if (/^(ERR_TLS|ERR_SSL|EPROTO)/.test(code) || /secure TLS connection/i.test(detail)) {
      return { kind: 'tls', message: `handshake with ${target} failed (${code}: ${detail})` };
    }
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
      return { kind: 'connect', message: `${target} closed the connection before responding (${code}: ${detail})` };
    }
    return { kind: 'connect', message: `${target}: ${code ? `${code}: ` : ''}${detail}` };
  }
}

/** Name and value pairs as received; bytes that are not UTF-8 are kept one char per byte (latin1). */
function headerLines(raw: ReadonlyArray<Buffer | string>): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([headerText(raw[i]), headerText(raw[i + 1])]);
  return out;
}

function headerText(v: Buffer | string): string {
  if (typeof v === 'string') return v;
  return isUtf8(v) ? v.toString('utf8') : v.toString('latin1');
}

function rawHeaderList(raw: unknown): Array<Buffer | string> {
  if (Array.isArray(raw)) return raw as Array<Buffer | string>;
  // Parsed form (HTTP/2 or a future undici): { name: value | value[] }
  const out: string[] = [];
  if (raw && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) out.push(name, String(v));
    }
  }
  return out;
}
