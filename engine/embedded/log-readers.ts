// Which tasks read each partition log, and feeding them. A task is pumped (handed what its logs hold
// past its position, as much as it has room for) when it asks for more or a commit publishes records
// to a log it reads, at most once per event-loop turn; a log then drops from memory what every
// reader in the process has read.
import type { StreamTask } from '../task/stream-task.js';
import type { PartitionLog } from './partition-log.js';
import { placeholder } from './log-damage.js';

/** The most records handed to a task at once from one log. */
const READ_BATCH = 512;

export class LogReaders<S> {
  /** Topic → the tasks that read it (every partition). */
  private readonly readers = new Map<string, StreamTask<S>[]>();
  private readonly toPump = new Set<StreamTask<S>>();
  private pumpScheduled = false;

  constructor(
    private readonly log: (topic: string, partition: number) => PartitionLog,
    /** Nothing more is read (the runtime stopped). */
    private readonly stopped: () => boolean,
  ) {}

  add(task: StreamTask<S>): void {
    for (const topic of task.node.inputs) this.readers.set(topic, [...(this.readers.get(topic) ?? []), task]);
  }

  /** The tasks reading `topic`, of every partition. */
  of(topic: string): readonly StreamTask<S>[] {
    return this.readers.get(topic) ?? [];
  }

  /** A commit appended records to `log`: its readers are pumped. */
  published(log: PartitionLog): void {
    for (const t of this.of(log.topic)) if (t.partition === log.partition) this.pumpSoon(t);
  }

  pumpSoon(task: StreamTask<S>): void {
    this.toPump.add(task);
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      const tasks = [...this.toPump];
      this.toPump.clear();
      for (const t of tasks) this.pump(t);
    });
  }

  private pump(task: StreamTask<S>): void {
    if (this.stopped()) return;
    for (const topic of task.node.inputs) {
      const log = this.log(topic, task.partition);
      this.trimTail(log);
      for (let capacity = task.capacity(); capacity > 0; capacity = task.capacity()) {
        const next = task.nextOffset(topic);
        const records = log.read(next, Math.min(capacity, READ_BATCH), task.byteRoom());
        if (records.length === 0) {
          // Offsets damage made unreadable: the restored position marks the range's last one finished.
          const lost = log.lostAt(next);
          if (!lost) break;
          records.push(placeholder(log, lost.to - 1));
        }
        task.offer(records);
      }
      this.trimTail(log);
    }
  }

  /** Lets the log drop the records every reader of it in this process has read. */
  private trimTail(log: PartitionLog): void {
    let below = log.end;
    for (const t of this.of(log.topic)) {
      if (t.partition !== log.partition) continue;
      if (!t.started) return; // where it will start reading is not known yet
      below = Math.min(below, t.nextOffset(log.topic));
    }
    log.readBy(below);
  }
}
