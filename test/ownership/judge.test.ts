// The pure judge: every row of the decision table (docs/ownership.md#decision-table), table-driven.
import { describe, expect, it } from 'vitest';
import {
  decide,
  judgeFromSnapshot,
  sessionCarrying,
  livenessFromSnapshot,
  livenessNeeded,
  paneToRead,
  verdictLine,
  type DecideInput,
} from '../../src/ownership/judge';
import type { Liveness, LiveRow, RegistryRow } from '../../src/registry';
import type { Task } from '../../src/tasks';
import type { PaneRead } from '../../src/tmux/session-marks';

const N = 'a'.repeat(32);
const N2 = 'b'.repeat(32);
const ME = 'me-0000';
const OTHER = 'other-1111';

const pending: Task = { slug: 't', driverSid: '', driverPane: 'op-t', spawnNonce: N };

interface Row {
  name: string;
  task: Task | null;
  taskError?: string;
  asker: string;
  pane?: PaneRead;
  live?: Liveness;
  verdict: 0 | 9 | 5;
  owner: string | null;
  liveness: Liveness | null;
  via: 'sid' | 'pane' | null;
  code: string;
}

const rows: Row[] = [
  { name: 'task.json missing', task: null, asker: ME, verdict: 5, owner: null, liveness: null, via: null, code: 'no-task' },
  { name: 'task.json invalid', task: null, taskError: 'x/task.json: not valid JSON', asker: ME, verdict: 5, owner: null, liveness: null, via: null, code: 'task-invalid' },
  { name: 'driverSid is the asker', task: { slug: 't', driverSid: ME }, asker: ME, verdict: 0, owner: ME, liveness: 'live', via: 'sid', code: 'sid-asker' },
  { name: 'operatorSid only, the asker', task: { slug: 't', operatorSid: ME }, asker: ME, verdict: 0, owner: ME, liveness: 'live', via: 'sid', code: 'sid-asker' },
  { name: 'driverSid another, live', task: { slug: 't', driverSid: OTHER }, asker: ME, live: 'live', verdict: 9, owner: OTHER, liveness: 'live', via: 'sid', code: 'sid-other' },
  { name: 'driverSid another, gone', task: { slug: 't', driverSid: OTHER }, asker: ME, live: 'gone', verdict: 9, owner: OTHER, liveness: 'gone', via: 'sid', code: 'sid-other' },
  { name: 'driverSid another, unknown', task: { slug: 't', driverSid: OTHER }, asker: ME, live: 'unknown', verdict: 9, owner: OTHER, liveness: 'unknown', via: 'sid', code: 'sid-other' },
  { name: 'driverSid set, empty asker', task: { slug: 't', driverSid: OTHER }, asker: '', live: 'live', verdict: 9, owner: OTHER, liveness: 'live', via: 'sid', code: 'sid-other' },
  { name: 'pending, no driverPane', task: { slug: 't', driverSid: '', spawnNonce: N }, asker: ME, verdict: 5, owner: null, liveness: null, via: null, code: 'pre-nonce' },
  { name: 'pending, no spawnNonce (pre-nonce task)', task: { slug: 't', driverSid: '', driverPane: 'op-t' }, asker: ME, pane: { nonce: '', stamp: ME }, verdict: 5, owner: null, liveness: null, via: null, code: 'pre-nonce' },
  { name: 'pending, no driverSid key at all', task: { slug: 't', driverPane: 'op-t' }, asker: ME, verdict: 5, owner: null, liveness: null, via: null, code: 'pre-nonce' },
  { name: 'pending, tmux failed', task: pending, asker: ME, pane: { tmuxError: 'no server running' }, verdict: 5, owner: null, liveness: null, via: null, code: 'tmux-error' },
  { name: 'pending, pane not read', task: pending, asker: ME, verdict: 5, owner: null, liveness: null, via: null, code: 'tmux-error' },
  { name: 'pending, session gone (empty read)', task: pending, asker: ME, pane: { nonce: '', stamp: '' }, verdict: 5, owner: null, liveness: null, via: null, code: 'no-nonce' },
  { name: 'pending, recreated session stamped by the asker, no nonce', task: pending, asker: ME, pane: { nonce: '', stamp: ME }, verdict: 5, owner: null, liveness: null, via: null, code: 'no-nonce' },
  { name: 'pending, recreated session stamped by the asker, another nonce', task: pending, asker: ME, pane: { nonce: N2, stamp: ME }, verdict: 5, owner: null, liveness: null, via: null, code: 'nonce-mismatch' },
  { name: 'pending, nonce matches, no stamp (boot window)', task: pending, asker: ME, pane: { nonce: N, stamp: '' }, verdict: 5, owner: null, liveness: null, via: null, code: 'booting' },
  { name: 'pending, stamp is the asker', task: pending, asker: ME, pane: { nonce: N, stamp: ME }, verdict: 0, owner: ME, liveness: 'live', via: 'pane', code: 'pane-asker' },
  { name: 'pending, another stamp, live', task: pending, asker: ME, pane: { nonce: N, stamp: OTHER }, live: 'live', verdict: 9, owner: OTHER, liveness: 'live', via: 'pane', code: 'pane-other' },
  { name: 'pending, another stamp, gone', task: pending, asker: ME, pane: { nonce: N, stamp: OTHER }, live: 'gone', verdict: 9, owner: OTHER, liveness: 'gone', via: 'pane', code: 'pane-other' },
  { name: 'pending, another stamp, unknown', task: pending, asker: ME, pane: { nonce: N, stamp: OTHER }, live: 'unknown', verdict: 9, owner: OTHER, liveness: 'unknown', via: 'pane', code: 'pane-other' },
  { name: 'pending, stamped, empty asker never 0', task: pending, asker: '', pane: { nonce: N, stamp: OTHER }, live: 'live', verdict: 9, owner: OTHER, liveness: 'live', via: 'pane', code: 'pane-other' },
];

describe('decide: the decision table of docs/ownership.md', () => {
  it.each(rows)('$name -> $verdict', (row) => {
    const asked: string[] = [];
    const input: DecideInput = {
      slug: 't',
      task: row.task,
      taskError: row.taskError,
      asker: row.asker,
      paneRead: row.pane,
      liveness: (sid) => {
        asked.push(sid);
        return row.live ?? 'unknown';
      },
    };
    const d = decide(input);
    expect({ verdict: d.verdict, owner: d.owner, liveness: d.liveness, via: d.via, code: d.code }).toEqual({
      verdict: row.verdict,
      owner: row.owner,
      liveness: row.liveness,
      via: row.via,
      code: row.code,
    });
    expect(d.reason).toContain('t');
    // Liveness is asked at most once, exactly for the session a 9 names, as livenessNeeded predicts.
    expect(asked).toEqual(d.verdict === 9 ? [d.owner] : []);
    const { liveness: _l, ...rest } = input;
    expect(livenessNeeded(rest)).toBe(d.verdict === 9 ? d.owner : null);
    if (d.verdict === 9) expect(d.reason).toContain('tmux-fleet takeover t');
  });

  it('never answers 0 to an empty asker, whatever the pane carries', () => {
    for (const pane of [{ nonce: N, stamp: '' }, { nonce: '', stamp: '' }, { nonce: N2, stamp: '' }]) {
      expect(decide({ slug: 't', task: pending, asker: '', paneRead: pane, liveness: () => 'live' }).verdict).toBe(5);
    }
    expect(decide({ slug: 't', task: { slug: 't', driverSid: '' }, asker: '', liveness: () => 'live' }).verdict).toBe(5);
  });

  it('reads the pane only for a pending task with a pane and a nonce', () => {
    expect(paneToRead(pending)).toBe('op-t');
    expect(paneToRead({ ...pending, driverSid: ME })).toBeNull();
    expect(paneToRead({ slug: 't', driverSid: '', driverPane: 'op-t' })).toBeNull();
    expect(paneToRead(null)).toBeNull();
  });

  it('renders the human lines', () => {
    const ok = decide({ slug: 't', task: { slug: 't', driverSid: ME }, asker: ME, liveness: () => 'live' });
    expect(verdictLine('t', ok)).toMatch(/^0 owner \(task t/);
    const other = decide({ slug: 't', task: { slug: 't', driverSid: OTHER }, asker: ME, liveness: () => 'gone' });
    expect(verdictLine('t', other)).toMatch(new RegExp(`^9 other ${OTHER} gone \\(.*tmux-fleet takeover t`));
    const five = decide({ slug: 't', task: null, asker: ME, liveness: () => 'live' });
    expect(verdictLine('t', five)).toBe('5 unknown: no task t');
  });
});

/** A registry row of a session id with its liveness (pids distinct, no park). */
let nextPid = 100;
const lr = (sessionId: string, liveness: Liveness, extra: Partial<RegistryRow> = {}): LiveRow => ({
  row: { pid: nextPid++, sessionId, ...extra },
  liveness,
  alive: liveness !== 'gone',
});

describe('judgeFromSnapshot (the supervisor path: one list-sessions snapshot)', () => {
  const sessions = new Map([
    ['op-t', { nonce: N, stamp: OTHER }],
    ['op-u', { nonce: N2, stamp: ME }],
  ]);
  const registry = { readable: true, rows: [lr(OTHER, 'live')] };

  it.each([
    ['stamp in the snapshot, another live session', pending, ME, 9, 'live'],
    ['stamp is the asker', pending, OTHER, 0, 'live'],
    ['session missing from the snapshot', { ...pending, driverPane: 'op-missing' }, ME, 5, null],
    ['session carries another nonce', { ...pending, driverPane: 'op-u' }, ME, 5, null],
    ['driverSid with no registry row but stamped', { slug: 't', driverSid: ME }, OTHER, 9, 'live'],
    ['driverSid neither in registry nor stamped', { slug: 't', driverSid: 'ghost' }, ME, 9, 'gone'],
  ] as const)('%s', (_name, task, asker, verdict, liveness) => {
    const d = judgeFromSnapshot({ slug: 't', task: task as Task, asker, sessions, registry });
    expect(d.verdict).toBe(verdict);
    expect(d.liveness).toBe(liveness);
  });

  it('a 9 names the tmux session carrying the owner\'s stamp: the task\'s driverPane first, else the first by name; none: null', () => {
    const many = new Map([
      ['zeta', { nonce: '', stamp: 'owner-1' }],
      ['rev', { nonce: '', stamp: 'owner-1' }],
      ['op-t', { nonce: '', stamp: 'owner-1' }],
      ['mine', { nonce: '', stamp: ME }],
    ]);
    const d = (task: Record<string, unknown>) => judgeFromSnapshot({ slug: 't', task: task as Task, asker: ME, sessions: many, registry });
    expect(d({ slug: 't', driverSid: 'owner-1' })).toMatchObject({ verdict: 9, ownerSession: 'op-t' });
    expect(d({ slug: 't', driverSid: 'owner-1', driverPane: 'zeta' })).toMatchObject({ verdict: 9, ownerSession: 'zeta' });
    expect(d({ slug: 't', driverSid: 'owner-1', driverPane: 'gone' }).ownerSession).toBe('op-t');
    expect(d({ slug: 't', driverSid: 'owner-1', driverPane: 'gone' }).reason).toContain('task t: Driver: op-t (owner-1), live; to take over on purpose');
    expect(d({ slug: 't', driverSid: 'nobody' })).toMatchObject({ verdict: 9, ownerSession: null });
    expect(d({ slug: 't', driverSid: 'nobody' }).reason).toContain('task t: Driver: nobody, gone; to take over on purpose: tmux-fleet takeover t');
    expect(sessionCarrying(null, 'owner-1')).toBeNull();
    expect(sessionCarrying(many, '')).toBeNull();
  });

  it('answers 5 for a pending task when the snapshot failed', () => {
    expect(judgeFromSnapshot({ slug: 't', task: pending, asker: OTHER, sessions: null, registry }).code).toBe('tmux-error');
  });

  it('liveness: registry row first, then the stamps, unknown when unreadable', () => {
    const reg = { readable: true, rows: [lr('x', 'gone'), lr('x', 'live'), lr('y', 'gone', { procStart: '123' }), lr('w', 'gone')] };
    expect(livenessFromSnapshot('x', reg, new Set())).toBe('live');
    expect(livenessFromSnapshot('y', reg, new Set(['y']))).toBe('gone'); // a row that names its process decides over a stamp
    // A dead row that names no process (a pid alone) proves nothing of the stamped agent's own process.
    expect(livenessFromSnapshot('w', reg, new Set(['w']))).toBe('live');
    expect(livenessFromSnapshot('w', reg, new Set())).toBe('gone');
    expect(livenessFromSnapshot('z', reg, new Set(['z']))).toBe('live');
    expect(livenessFromSnapshot('z', reg, new Set())).toBe('gone');
    expect(livenessFromSnapshot('z', reg, null)).toBe('unknown');
    expect(livenessFromSnapshot('x', { readable: false, rows: [] }, new Set(['x']))).toBe('unknown');
    // No row, but the task recorded its Driver's process: that decides over a stamp.
    const recorded = { readable: true, rows: [], recorded: new Map<string, Liveness>([['r', 'gone'], ['q', 'live']]) };
    expect(livenessFromSnapshot('r', recorded, new Set(['r']))).toBe('gone');
    expect(livenessFromSnapshot('q', recorded, new Set())).toBe('live');
    expect(livenessFromSnapshot('x', { ...recorded, rows: reg.rows }, new Set())).toBe('live'); // a row decides first
    // A dead row of the id never outweighs a live recorded process.
    expect(livenessFromSnapshot('q', { ...recorded, rows: [lr('q', 'gone', { procStart: '9' })] }, new Set())).toBe('live');
  });

  it.each<[string, Liveness | undefined, readonly LiveRow[], Liveness | null, boolean | null, Liveness]>([
    ['the process a stamp recorded runs: live, whatever the stamp alone would say', undefined, [], 'live', false, 'live'],
    ['the process a stamp recorded exited while its session keeps the stamp: gone', undefined, [], 'gone', true, 'gone'],
    ['a dead row of another pid and a live stamped process: live', undefined, [lr('s', 'gone', { procStart: '5' })], 'live', true, 'live'],
    ['a live row decides before any record', 'gone', [lr('s', 'live')], 'gone', true, 'live'],
    ['the task records a live process; a stamp records a dead one: live', 'live', [], 'gone', true, 'live'],
    ['rows of another pid domain and a dead recorded process: unknown, never gone', 'gone', [lr('s', 'unknown')], null, true, 'unknown'],
    ['no record, no row, tmux unreadable: unknown', undefined, [], null, null, 'unknown'],
  ])('stamped processes: %s', (_name, recorded, rows, stamped, carried, want) => {
    const registry = { readable: true, rows, recorded: recorded === undefined ? undefined : new Map([['s', recorded]]) };
    const stamps = carried === null ? null : new Set(carried ? ['s'] : []);
    const procs = stamped === null ? undefined : new Map([['s', stamped]]);
    expect(livenessFromSnapshot('s', registry, stamps, procs)).toBe(want);
  });
});
