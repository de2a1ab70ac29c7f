// Two things undici's HTTP/1.1 client gets wrong for a crawler, corrected on each socket it is given:
//
// 1. It destroys the connection on an interim "100 Continue" it did not ask for ("bad response"),
//    though RFC 9110 §15.2 says a client must parse and may ignore unexpected 1xx responses (other
//    1xx codes it already skips). The guard drops such blocks where a response begins, before the
//    parser sees them. With one request at a time per socket (pipelining 1), a response begins with
//    the first bytes read after a request is written.
// 2. It takes a connection reset during a body delimited by the connection's close as the body's
//    normal end (a macOS workaround in undici), so a cut-off page would look whole. The guard marks
//    the synchronous handling of such a reset so the response collector can tell.
import type { Socket } from 'node:net';

// An interim block longer than this is not a 100 Continue we can skip: let the parser refuse it.
const MAX_INTERIM_BYTES = 16 * 1024;
const STATUS_PREFIX = 'HTTP/1.x 100';
const EMPTY: Buffer = Buffer.alloc(0);

let resetting = 0;

/** True while a socket's ECONNRESET is being handled: a response that "ends" now was cut off. */
export function connectionResetInProgress(): boolean {
  return resetting > 0;
}

type Connector = (opts: never, cb: (err: Error | null, socket: Socket | null) => void) => unknown;

/** Wraps an undici connector so every socket it opens is guarded. */
export function guardConnector<C extends Connector>(connector: C): C {
  return ((opts: never, cb: (err: Error | null, socket: Socket | null) => void) =>
    connector(opts, (err, socket) => {
      if (socket) guardSocket(socket);
      cb(err, socket);
    })) as C;
}

export function guardSocket(socket: Socket): void {
  let atResponseStart = false;
  let pending: Buffer = EMPTY;
  const push = socket.push;
  const write = socket.write;
  const emit = socket.emit;

  socket.write = function (this: Socket, ...args: unknown[]) {
    atResponseStart = true;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof socket.write;

  socket.push = function (this: Socket, chunk: unknown, encoding?: BufferEncoding) {
    if (chunk === null) {
      // The peer closed: whatever is held is the last of the stream, undici judges it.
      const held = pending;
      pending = EMPTY;
      atResponseStart = false;
      if (held.length) push.call(this, held);
      return push.call(this, null);
    }
    if (!atResponseStart || !Buffer.isBuffer(chunk)) return push.call(this, chunk, encoding);
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      const verdict = interimBlockEnd(pending);
      if (verdict === 'wait') return true;
      if (verdict === 'final') break;
      pending = pending.subarray(verdict);
      if (pending.length === 0) return true;
    }
    const out = pending;
    pending = EMPTY;
    atResponseStart = false;
    return push.call(this, out);
  } as typeof socket.push;

  socket.emit = function (this: Socket, event: string | symbol, ...args: unknown[]) {
    if (event !== 'error' || (args[0] as NodeJS.ErrnoException | undefined)?.code !== 'ECONNRESET') {
      return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
    }
    resetting++;
    try {
      return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
    } finally {
      resetting--;
    }
  } as typeof socket.emit;
}

/**
 * Where a leading "HTTP/1.x 100" interim response ends in `buf` (its length, to drop it), 'final'
 * when `buf` starts with anything else, or 'wait' when more bytes are needed to tell.
 */
export function interimBlockEnd(buf: Buffer): number | 'wait' | 'final' {
  const n = Math.min(buf.length, STATUS_PREFIX.length);
  for (let i = 0; i < n; i++) {
    const c = buf[i];
    const ok = i === 7 ? c === 0x30 || c === 0x31 : c === STATUS_PREFIX.charCodeAt(i);
    if (!ok) return 'final';
  }
  if (buf.length <= STATUS_PREFIX.length) return 'wait';
  const after = buf[STATUS_PREFIX.length];
  if (after !== 0x20 && after !== 0x0d && after !== 0x0a) return 'final'; // e.g. "HTTP/1.1 1000"
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  const ends = [crlf === -1 ? -1 : crlf + 4, lf === -1 ? -1 : lf + 2].filter((e) => e > 0);
  if (ends.length) return Math.min(...ends);
  return buf.length > MAX_INTERIM_BYTES ? 'final' : 'wait';
}
