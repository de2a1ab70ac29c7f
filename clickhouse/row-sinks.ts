// Rows that users' processors write to their own tables, exactly once like the crawl's: each task
// gets a writer under its own sink id (the processor's stored name and log identity), bound to one table that it
// creates on first use.
import type { Logger } from '../engine/api.js';
import type { ClickHouse } from './connection.js';
import { SinkWriter, type SinkSource, type SinkWriterOptions } from './sink-writer.js';
import { createUserTableSql, type UserTable } from './user-tables.js';

export interface RowSink<Row extends Record<string, unknown> = Record<string, unknown>> {
  /**
   * Resolves once the rows are durably in the table (or were already there after a restart). Call it
   * from `process` before any await, in record order: positions per source partition are kept by
   * offset. Make the processor concurrent, or each record waits for a flush.
   */
  write(source: SinkSource, rows: Row[]): Promise<void>;
  /** Rows handed over and not yet written: the processor's pending work. */
  readonly pending: number;
  close(): Promise<void>;
  /** The task moved: insert nothing more (its new owner writes the rest). */
  abort(): void;
}

export interface RowSinks {
  open(table: UserTable, task: { storedName: string; logId: string; logger: Logger }): RowSink;
}

export function rowSinks(connect: () => Promise<ClickHouse>, trouble?: SinkWriterOptions['trouble']): RowSinks {
  const created = new Map<string, Promise<void>>();
  return {
    open(table, task) {
      const ready = async () => {
        const ch = await connect();
        let done = created.get(table.name);
        if (!done) created.set(table.name, (done = ch.command(createUserTableSql(table)).catch((err) => {
          created.delete(table.name);
          throw err;
        })));
        await done;
        return ch;
      };
      const writer = new SinkWriter({ connect: ready, sinkId: `${task.storedName}:${task.logId}`, tables: [table.name], logger: task.logger, trouble });
      return {
        write: (source, rows) => writer.write(source, rows.map((row) => ({ table: table.name, row: { ...row }, bytes: JSON.stringify(row).length }))),
        get pending() {
          return writer.pending;
        },
        close: () => writer.close(),
        abort: () => void writer.abort(),
      };
    },
  };
}
