import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IllegalTransitionError, TaskLifecycle, type TaskState } from './task-lifecycle.js';

const ALL: TaskState[] = ['created', 'restoring', 'running', 'closing', 'handing-over', 'abandoning', 'closed', 'handed-over', 'abandoned'];
const ALLOWED: Record<TaskState, TaskState[]> = {
  created: ['restoring', 'abandoning', 'closed'],
  restoring: ['running', 'abandoning', 'closed'],
  running: ['closing', 'handing-over', 'abandoning'],
  closing: ['abandoning', 'closed'],
  'handing-over': ['abandoning', 'handed-over'],
  abandoning: ['abandoned'],
  closed: [],
  'handed-over': [],
  abandoned: [],
};
/** A path from `created` to each state, through allowed transitions. */
const PATH: Record<TaskState, TaskState[]> = {
  created: [], restoring: ['restoring'], running: ['restoring', 'running'], closing: ['restoring', 'running', 'closing'],
  'handing-over': ['restoring', 'running', 'handing-over'], abandoning: ['abandoning'], closed: ['closed'],
  'handed-over': ['restoring', 'running', 'handing-over', 'handed-over'], abandoned: ['abandoning', 'abandoned'],
};

function at(state: TaskState): TaskLifecycle {
  const l = new TaskLifecycle('t');
  for (const s of PATH[state]) l.to(s);
  return l;
}

describe('task lifecycle', () => {
  for (const from of ALL) {
    for (const to of ALL) {
      const allowed = ALLOWED[from].includes(to);
      it(`should ${allowed ? 'allow' : 'refuse'} ${from} → ${to}`, () => {
        const l = at(from);
        if (allowed) {
          l.to(to);
          assert.equal(l.state, to);
        } else {
          assert.throws(() => l.to(to), IllegalTransitionError);
          assert.equal(l.state, from, 'a refused transition changes nothing');
        }
      });
    }
  }

  it('should accept records only while running, and call every state after running leaving', () => {
    for (const s of ALL) {
      assert.equal(at(s).accepting, s === 'running', s);
      assert.equal(at(s).leaving, ['closing', 'handing-over', 'abandoning', 'closed', 'handed-over', 'abandoned'].includes(s), s);
      assert.equal(at(s).ended, ['closed', 'handed-over', 'abandoned'].includes(s), s);
      assert.equal(at(s).discarded, ['abandoning', 'abandoned'].includes(s), s);
    }
  });

  it('should resolve a wait for a state when the task reaches it, and at once when it is there', async () => {
    const l = at('running');
    let reached = false;
    const waiting = l.when('closed').then(() => (reached = true));
    l.to('closing');
    await Promise.resolve();
    assert.equal(reached, false);
    l.to('closed');
    await waiting;
    assert.equal(reached, true);
    await l.when('closed');
  });
});
