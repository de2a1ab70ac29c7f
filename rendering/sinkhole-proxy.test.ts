import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { SinkholeProxy } from './sinkhole-proxy.js';

function knock(proxy: string, send?: string): Promise<string> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      if (send !== undefined) socket.write(send);
    });
    let got = '';
    socket.on('data', (d) => (got += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

test('should count every connection, tell the first request line, answer nothing and close', async () => {
  const lines: string[] = [];
  const sink = new SinkholeProxy((l) => lines.push(l));
  const proxy = await sink.start();
  try {
    assert.equal(await knock(proxy, 'CONNECT accounts.test:443 HTTP/1.1\r\nHost: accounts.test:443\r\n\r\n'), '');
    assert.equal(await knock(proxy, 'GET http://site.test/x HTTP/1.1\r\n\r\n'), '');
    assert.equal(await knock(proxy), '', 'a silent connection (a preconnect) is closed too');
    assert.equal(sink.connections, 3);
    assert.deepEqual(lines, ['CONNECT accounts.test:443 HTTP/1.1', 'GET http://site.test/x HTTP/1.1']);
    assert.deepEqual(sink.requestLines, lines);
  } finally {
    await sink.close();
  }
});
