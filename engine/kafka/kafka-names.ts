// Names of everything the engine creates on a Kafka cluster. A prefix (--topic-prefix) lets several
// crawls share a cluster; all names derive from it here and nowhere else.

export class KafkaNames {
  /** `identity` names consumer groups, transactional ids and changelogs: a replay runs under its own. */
  constructor(readonly prefix = '', readonly identity = 'crawlstream') {}

  topic(logical: string): string {
    return `${this.prefix}${logical}`;
  }

  logical(physical: string): string {
    return physical.startsWith(this.prefix) ? physical.slice(this.prefix.length) : physical;
  }

  /** Consumer group of a processor: its committed positions are the processor's progress. */
  group(processor: string): string {
    return `${this.prefix}${this.identity}.${processor}`;
  }

  /** Compacted topic backing a task's store; partition p restores task p. */
  changelog(processor: string, store: string): string {
    return `${this.prefix}${this.identity}.${processor}.${store}.changelog`;
  }

  /** One transactional producer per worker process: every task it runs commits in its transactions. */
  workerTransactionalId(worker: string): string {
    return `${this.prefix}${this.identity}.worker.${worker}`;
  }

  /**
   * Which worker's transactional id may write for each task (compacted, one partition): a task's new
   * owner fences the last one unless it released the task (engine/kafka/task-owners.ts).
   */
  get taskOwners(): string {
    return `${this.prefix}${this.identity}.task-owners`;
  }

  /**
   * The cluster-wide state (application options, pause, generation, log identity) written by `seed`,
   * `scale` and `topics create`, read by every worker (compacted, one partition). The name predates
   * the engine's split from the crawler and is kept so existing clusters stay readable.
   */
  get stateTopic(): string {
    return `${this.prefix}crawlstream.crawl-config`;
  }

  /** Each task's latest status (lag, frontier, in flight), for `status` (compacted, one partition). */
  get taskStatus(): string {
    return `${this.prefix}crawlstream.task-status`;
  }
}

/** Store holding a task's input positions, changelogged with its other stores. */
export const POSITIONS_STORE = 'positions';
