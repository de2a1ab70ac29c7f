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

  /** Why `output` could not finish its work, or undefined when nothing is known to be wrong. */
  why(output: string): string | undefined {
    const state = this.outputs.get(output);
    if (!state) return undefined;
    const oldest = Math.min(...state.open.values());
    const waited = this.clock() - oldest;
    const hanging = Number.isFinite(oldest) && waited >= SLOW_MS ? `no answer for ${(waited / 1000).toFixed(0)} s` : undefined;
    if (state.failure && hanging) return `${state.failure}; the latest attempt has had ${hanging}`;
    return state.failure ?? (hanging ? `an attempt has had ${hanging}` : undefined);
  }

  private state(output: string): State {
    let s = this.outputs.get(output);
    if (!s) this.outputs.set(output, (s = { open: new Map() }));
    return s;
  }
}
