// test-plan: e2e uses=clickhouse
// docker-compose.yml is for users' machines; there is no Docker engine here, but Debian's
// docker-compose parses and checks the file without one (installed by scripts/dev-services.sh).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const FILE = new URL('../../docker-compose.yml', import.meta.url).pathname;

describe('docker-compose.yml', () => {
  it('should pass docker-compose config and name pinned images of Kafka, a schema registry and ClickHouse', () => {
    const out = execFileSync('docker-compose', ['-f', FILE, 'config'], { encoding: 'utf8' });
    const images = [...out.matchAll(/image:\s*(\S+)/g)].map((m) => m[1]);
    assert.ok(images.some((i) => /^apache\/kafka:\d/.test(i)), `Kafka image in ${images}`);
    assert.ok(images.some((i) => /schema-registry|apicurio/.test(i)), `registry image in ${images}`);
    assert.ok(images.some((i) => /^clickhouse\/clickhouse-server:\d/.test(i)), `ClickHouse image in ${images}`);
    assert.ok(images.every((i) => /:[\w.-]+$/.test(i) && !i.endsWith(':latest')), `every image pinned to a version: ${images}`);
    for (const port of ['127.0.0.1:19092', '127.0.0.1:18081', '127.0.0.1:18123']) {
      assert.ok(out.includes(port.split(':')[1]) && out.includes('127.0.0.1'), `port ${port} published on loopback`);
    }
  });
});
