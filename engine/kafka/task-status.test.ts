import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { busyReason, idleVerdict, pausedReason, taskBusy, type TaskStatus } from './task-status.js';

const status = (s: Partial<TaskStatus>): TaskStatus => ({
  processor: 'schedule', partition: 0, worker: 'w1', quiescent: true, pendingWork: false, consumedUpTo: { fetched: 5 }, gauges: {}, counters: {}, at: 1_000, ...s,
});

describe('a busy task says why (issue 18)', () => {
  it('should join what the task holds with what its commit waits on', () => {
    const task = { outstanding: () => ['1 queued from deduped@41'] };
    assert.equal(busyReason(task, { busy: true, failed: false }), '1 queued from deduped@41; a worker transaction is running or due');
    assert.equal(busyReason({ outstanding: () => ['fetched read to 9, committed to 8'] }, { busy: true, failed: true }), 'fetched read to 9, committed to 8; the worker transaction failed; its tasks re-open');
    assert.equal(busyReason({ outstanding: () => [] }, { busy: false, failed: false }), 'not settled (nothing outstanding found)');
  });

  it("should give status --wait-idle the busy task's reason, and say 'not quiescent' for a worker that published none", () => {
    const statuses = new Map([['schedule/0', status({ quiescent: false, busy: '1 queued from deduped@41' })]]);
    const verdict = idleVerdict(statuses, new Map([['fetched/0', 5]]), [{ name: 'schedule', inputs: ['fetched'] }], 1, 2_000);
    assert.deepEqual(verdict, { idle: false, reason: 'schedule-0 is busy', detail: '1 queued from deduped@41' });
    assert.equal(taskBusy(status({ quiescent: false, pendingWork: true })), 'not quiescent; the processor has work due');
    assert.equal(taskBusy(status({})), '');
  });
});

describe('a paused crawl is not a finished one', () => {
  // `scale` pauses the crawl and drains it: every task then looks idle, and more work follows once it
  // resumes. A fresh-session run of the scale-out test had `status --wait-idle` return in that window.
  it('should not be idle while the cluster state says paused, even when every task looks idle', () => {
    const statuses = [status({}), status({ partition: 1 })];
    assert.match(pausedReason(true, statuses) ?? '', /paused: `crawlstream scale` is under way/);
  });

  it('should not be idle while a task has not republished since the resume', () => {
    assert.equal(pausedReason(false, [status({ paused: true }), status({ partition: 1 })]), 'not resumed yet since the crawl was paused: 1 task');
    assert.equal(pausedReason(false, [status({ paused: true, worker: '' })]), undefined, 'a task no worker holds says nothing');
  });

  it('should say nothing of a crawl that is not paused', () => {
    assert.equal(pausedReason(false, [status({}), status({ paused: false })]), undefined);
  });
});
