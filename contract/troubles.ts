// What each output (ClickHouse, the WARC directory) is going through right now, told by the writers
// that use it: an attempt that has not ended, the latest failure until a write works again. A stop
// that leaves rows unwritten or captures unarchived says why with it, in its last lines, instead of
// only "see the warnings above".

/** A writer's side: the structural shape clickhouse/ and warc/ writers take (they import no contract). */
export interface OutputTrouble {
  /** An attempt (an INSERT, a batch of captures) started; call the returned function when it ended. */
  begin(): () => void;
  failed(message: string): void;
  working(): void;
}

interface State {
  failure?: string;
  /** Start times of attempts not ended yet, by attempt. */
  open: Map<number, number>;
}

export interface OutputState {
  /** The latest failure, until a write works again. */
  failure?: string;
  /** An attempt has had no answer this long (at least a second). */
  silentMs?: number;
}

/** How long an attempt may be open before a stop calls it unanswered. */
const SLOW_MS = 1_000;

export class Troubles {
  private readonly outputs = new Map<string, State>();
  private attempts = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  of(output: string): OutputTrouble {
    const state = this.state(output);
    return {
      begin: () => {
        const id = ++this.attempts;
        state.open.set(id, this.clock());
        return () => void state.open.delete(id);
      },
      failed: (message) => void (state.failure = message.replace(/\s+/g, ' ').trim().slice(0, 500)),
      working: () => void (state.failure = undefined),
    };
  }

  /** What `output` is going through: its latest failure, and how long its oldest open attempt has gone unanswered. */
  why(output: string): OutputState | undefined {
    const state = this.outputs.get(output);
    if (!state) return undefined;
    const oldest = Math.min(...state.open.values());
    const waited = Number.isFinite(oldest) ? this.clock() - oldest : 0;
    const silentMs = waited >= SLOW_MS ? waited : undefined;
    if (!state.failure && silentMs === undefined) return undefined;
    return { failure: state.failure, silentMs };
  }

  private state(output: string): State {
    let s = this.outputs.get(output);
    if (!s) this.outputs.set(output, (s = { open: new Map() }));
    return s;
  }
}
