// A minimal HTTP/1.1 responder over a TCP socket, for the bench server only: it answers GET and HEAD with
// responses built in advance (status line, headers and body in one buffer), keeps connections alive, and
// does nothing else. node:http parses every header into objects and builds a response per request, about
// 0.15 ms of CPU per page on the bench machine; the bench web must cost the crawlers' cores almost nothing.
// Not a general server: requests with a body are answered and the connection closed (a GET has none).
import type { Socket } from 'node:net';

/** A response built once: `bytes` holds the head and the body, `headLength` where the body starts. */
export interface Prebuilt {
  status: number;
  bytes: Buffer;
  headLength: number;
}

export function prebuild(status: number, reason: string, contentType: string, body: Buffer): Prebuilt {
  const head = Buffer.from(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: ${contentType}\r\ncontent-length: ${body.length}\r\nkeep-alive: timeout=30\r\n\r\n`, 'latin1');
  return { status, bytes: Buffer.concat([head, body]), headLength: head.length };
}

const BAD_REQUEST = prebuild(400, 'Bad Request', 'text/plain', Buffer.from('bad request\n'));
const NOT_ALLOWED = prebuild(405, 'Method Not Allowed', 'text/plain', Buffer.from('GET and HEAD only\n'));
/** A request head longer than this is refused: nothing a crawler sends comes close. */
export const MAX_HEAD_BYTES = 16 * 1024;
const IDLE_MS = 30_000;
const END = Buffer.from('\r\n\r\n');

export interface Exchange {
  method: string;
  target: string;
}

/** Picks the answer to a request; `sent(status)` is called once it is handed to the kernel (for a request log). */
export type Handler = (request: Exchange) => { answer: Prebuilt; sent: (status: number) => void };

/** Serves one connection: GET and HEAD answered by `handle`, anything else refused, keep-alive unless asked otherwise. */
export function serveConnection(socket: Socket, handle: Handler): void {
  let pending: Buffer | undefined;
  socket.setNoDelay(true);
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
    pending = undefined;
    for (;;) {
      const end = buf.indexOf(END);
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) return void socket.end(BAD_REQUEST.bytes);
        if (buf.length) pending = buf;
        return;
      }
      const head = buf.toString('latin1', 0, end);
      buf = buf.subarray(end + END.length);
      const lineEnd = head.indexOf('\r\n');
      const [method, target, version] = (lineEnd < 0 ? head : head.slice(0, lineEnd)).split(' ');
      const headers = lineEnd < 0 ? '' : head.slice(lineEnd + 2).toLowerCase();
      const { answer: picked, sent } = handle({ method, target: target ?? '' });
      const malformed = !target || !version?.startsWith('HTTP/1.');
      const answer = malformed ? BAD_REQUEST : method === 'GET' || method === 'HEAD' ? picked : NOT_ALLOWED;
      const bytes = method === 'HEAD' ? answer.bytes.subarray(0, answer.headLength) : answer.bytes;
      // A body would have to be read past; no crawler sends one with GET, so such a connection just ends.
      const close = malformed || version === 'HTTP/1.0' || /(^|\r\n)(connection: *close|content-length: *[1-9]|transfer-encoding:)/.test(headers);
      if (close) return void socket.end(bytes, () => sent(answer.status));
      socket.write(bytes, () => sent(answer.status));
    }
  });
}
