// A child process for the kill -9 tests of the embedded runtime: the word count over N lines. It prints
// `SEEDED <lines>` after each committed chunk of input, `PROGRESS <counts>` as counts are committed,
// and `DONE <json>` with what the logs and the store hold once everything is processed.
import { EmbeddedRuntime } from '../embedded-runtime.js';
import { corpusLine, totals, wordCountTopology } from '../../examples/word-count.js';

const [dataDir, total] = [process.argv[2], Number(process.argv[3])];
const runtime = await EmbeddedRuntime.open({
  dataDir, topology: wordCountTopology(), services: { cpuPerRecord: 20_000 }, partitions: 3,
  logger: { info: () => {}, warn: (m) => process.stderr.write(m + '\n') },
});
const sum = (topic: string) => Array.from({ length: runtime.partitions }, (_, p) => runtime.log(topic, p).end).reduce((a, b) => a + b, 0);
await runtime.start();
const progress = setInterval(() => process.stdout.write(`PROGRESS ${sum('counts')}\n`), 10);
// Seeding in chunks: each chunk is one commit, so a kill leaves whole chunks and the count tells where to go on.
for (let start = sum('lines'); start < total; start += 250) {
  const chunk = [];
  for (let i = start; i < Math.min(total, start + 250); i++) chunk.push(runtime.produce('lines', `doc${i}`, corpusLine(i)));
  await Promise.all(chunk);
  process.stdout.write(`SEEDED ${Math.min(total, start + 250)}\n`);
}
await runtime.whenIdle();
clearInterval(progress);
const counts: Record<string, number> = {};
for (const task of runtime.tasks) {
  if (task.node.name !== 'count') continue;
  for await (const [word, n] of task.storeOf(totals).entries()) counts[word] = n;
}
const result = { counts, words: sum('words'), countRecords: sum('counts') };
await runtime.stop();
process.stdout.write(`DONE ${JSON.stringify(result)}\n`);
