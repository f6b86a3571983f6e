// `done` stops a Driver on purpose: the wakes around it tell no "its Driver
// stopped" (the task is archived before its Driver is asked to exit), while a
// Driver that dies under a task that is not archived still does.
import { describe, expect, it } from 'vitest';
import { lookAtFleet, noticesOf } from '../../src/status/notices';
import type { FleetView, TaskView } from '../../src/fleet/view';
import type { Decision } from '../../src/ownership/judge';

function view(archivedAt: string | undefined, liveness: 'live' | 'gone'): FleetView {
  const decision: Decision = { verdict: 9, owner: 'sid-1', liveness, via: 'sid', reason: '', code: 'sid-other' };
  const task: TaskView = {
    slug: 'fix',
    task: { slug: 'fix', driverSid: 'sid-1', ...(archivedAt ? { archivedAt } : {}) },
    error: null,
    owner: 'sid-1',
    decision,
    session: null,
    hop: undefined,
    updatedAt: null,
    agent: 'claude',
    state: null,
  } as TaskView;
  return { sessions: [], tasks: [task], events: [], tmuxError: null, registry: { dir: '', readable: true, rows: 0, malformed: 0 } } as unknown as FleetView;
}

describe('notices of a Driver that stops', () => {
  it('a task archived (done) before its Driver exits: no notice', () => {
    const before = lookAtFleet(view(undefined, 'live'));
    const now = lookAtFleet(view('2026-01-01T00:00:00.000Z', 'gone'));
    expect(noticesOf(before, now, new Set(), [], () => null)).toEqual([]);
  });
  it('a task not archived whose Driver dies: its Driver stopped', () => {
    const before = lookAtFleet(view(undefined, 'live'));
    const now = lookAtFleet(view(undefined, 'gone'));
    expect(noticesOf(before, now, new Set(), [], () => null).map((n) => n.what)).toEqual(['its Driver stopped']);
  });
});
