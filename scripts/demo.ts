// `npm run demo`: a real crawl on the embedded default against a small demo site served on
// loopback, then a query over the results — the same commands a user types, printed as they run.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { startSyntheticWeb } from '../test-web/synthetic-web.js';

const root = resolve(new URL('../..', import.meta.url).pathname);
const bin = resolve(root, 'bin/crawlstream');
const dataDir = 'demo-data';

function sh(args: string[]): Promise<number> {
  const shown = args.map((a) => (/[\s"*(),]/.test(a) ? `'${a}'` : a)).join(' ');
  process.stdout.write(`\n$ bin/crawlstream ${shown}\n`);
  return new Promise((done) => {
    spawn(process.execPath, [bin, ...args], { cwd: root, stdio: 'inherit' }).on('exit', (code) => done(code ?? 1));
  });
}

const web = await startSyntheticWeb({ scenario: 'demo' });
process.stdout.write(`demo site: ${web.hosts.length} hosts on loopback (${web.hosts.map((h) => h.origin).join(', ')})\n`);
rmSync(resolve(root, dataDir), { recursive: true, force: true });
let code = await sh(['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '200']);
if (code === 0) {
  code = await sh(['query', 'SELECT host, count() AS pages, countIf(status = 200) AS ok, countIf(duplicate_of != \'\') AS duplicates, round(avg(bytes)) AS avg_bytes FROM pages GROUP BY host ORDER BY host', '--data-dir', dataDir]);
}
if (code === 0) {
  code = await sh(['query', 'SELECT url, status, title, duplicate_kind FROM pages ORDER BY url LIMIT 12', '--data-dir', dataDir]);
}
await web.close();
process.stdout.write(code === 0 ? `\nThe crawl's state and results are in ./${dataDir}; query them with bin/crawlstream query "SQL" --data-dir ${dataDir}\n` : '\ndemo failed\n');
process.exit(code);
