import { describe, expect, it } from 'vitest';
import { agentWaits, HopTracker, hopOf } from '../../src/registry/hop';
import { describeFollow, hopToast, renderAgent, renderHop, renderHopWithIntent, sid8 } from '../../src/status/hop-text';
import { follow, shortSid } from '../../src/registry/follow';
import type { LiveRow } from '../../src/registry/liveness';
import type { RegistryRow } from '../../src/registry/schema';

const TAB = '10e378ef-1111-4000-8000-000000000001';
const JOB = 'e9e4ae8e-2222-4000-8000-000000000002';
const r = (row: Partial<RegistryRow> & { pid: number; sessionId: string }, alive = true): LiveRow => ({ row, alive, liveness: alive ? 'live' : 'gone' });

const busyTab = [r({ pid: 1, sessionId: TAB, kind: 'interactive', status: 'busy' })];
const parked = (jobStatus = 'busy', waitingFor?: string) => [
  r({ pid: 1, sessionId: TAB, kind: 'interactive', status: 'idle', parkedJobId: 'e9e4ae8e' }),
  r({ pid: 2, sessionId: JOB, kind: 'bg', status: jobStatus, jobId: 'e9e4ae8e', ...(waitingFor ? { waitingFor } : {}) }),
];

describe('HopTracker', () => {
  it('first sight records without an event; a park and the way back are events', () => {
    const t = new HopTracker<{ seen: string[] }>(() => ({ seen: [] }));
    const stamps = { 'op-a': TAB };
    const u0 = t.update(stamps, busyTab);
    expect(u0.events).toEqual([]);
    expect(renderHop(u0.sessions.get('op-a'))).toBe('');
    expect(renderAgent(u0.sessions.get('op-a')!.agent)).toBe('busy');
    t.state(TAB).seen.push('tab event');

    const u1 = t.update(stamps, parked('waiting', 'approve Bash'));
    expect(u1.events).toEqual([
      {
        session: 'op-a',
        base: TAB,
        from: TAB,
        to: JOB,
        kind: 'park',
        jobId: 'e9e4ae8e',
      },
    ]);
    expect(hopToast(u1.events[0]!)).toBe('fleet: 10e3 parked its work on background job e9e4ae8e, following');
    const hop = u1.sessions.get('op-a')!;
    expect(renderHop(hop)).toBe('10e3 → e9e4');
    // The job's permission wait shows, not the tab's idle.
    expect(renderAgent(hop.agent)).toBe('waiting: approve Bash');
    // State stays filed under the tab's id, and was reset, not merged.
    expect(t.state(TAB).seen).toEqual([]);
    t.state(TAB).seen.push('job event');

    expect(t.update(stamps, parked('busy')).events).toEqual([]);
    expect(t.state(TAB).seen).toEqual(['job event']);

    const u3 = t.update(stamps, busyTab);
    expect(u3.events.map((e) => [e.kind, e.from, e.to, hopToast(e)])).toEqual([['back', JOB, TAB, 'fleet: work came back to 10e3']]);
    expect(renderHop(u3.sessions.get('op-a'))).toBe('');
    expect(t.state(TAB).seen).toEqual([]);
  });

  it('a row missing for one read toasts nothing', () => {
    const t = new HopTracker();
    t.update(new Map([['s', TAB]]), parked());
    expect(t.update(new Map([['s', TAB]]), []).events).toEqual([]);
    expect(t.update(new Map([['s', TAB]]), parked()).events).toEqual([]);
  });

  it('a new stamp on a session (/clear) is a new base, not a hop', () => {
    const t = new HopTracker();
    t.update([['s', TAB]], busyTab);
    const other = [r({ pid: 1, sessionId: 'ffff0000-x', status: 'idle', parkedJobId: 'e9e4ae8e' }), parked()[1]!];
    expect(t.update([['s', 'ffff0000-x']], other).events).toEqual([]);
  });

  it('a parked job whose row is not there yet is followed once it appears', () => {
    const t = new HopTracker();
    t.update({ s: TAB }, busyTab);
    expect(t.update({ s: TAB }, parked().slice(0, 1)).events).toEqual([]);
    expect(t.update({ s: TAB }, parked()).events.map((e) => e.kind)).toEqual(['park']);
  });

  it('forget: a session gone from tmux is dropped; renamed, its new name is a first sight (no event); a base still held keeps its state', () => {
    const t = new HopTracker<{ seen: string[] }>(() => ({ seen: [] }));
    t.update({ a: TAB, b: TAB }, busyTab);
    t.state(TAB).seen.push('kept');
    t.forget(['a']);
    expect([...t.updateSome([], busyTab).sessions.keys()]).toEqual(['b']);
    expect(t.state(TAB).seen).toEqual(['kept']);
    // b renamed c while parked: c is a first sight, as a full update would see it.
    t.forget(['b']);
    expect(t.state(TAB).seen).toEqual([]);
    const u = t.updateSome([['c', TAB]], parked());
    expect([u.events, [...u.sessions.keys()]]).toEqual([[], ['c']]);
    expect(t.updateSome([['c', TAB]], busyTab).events.map((e) => e.kind)).toEqual(['back']);
  });

  it('unstamped sessions are not tracked', () => {
    const t = new HopTracker();
    expect([...t.update({ a: '' }, busyTab).sessions.keys()]).toEqual([]);
  });
});

describe('render', () => {
  it('agent text from the attached row', () => {
    expect(renderAgent({ sessionId: 'x', status: 'idle', waitingFor: null, alive: true })).toBe('idle');
    expect(renderAgent({ sessionId: 'x', status: 'waiting', waitingFor: null, alive: true })).toBe('waiting');
    expect(renderAgent({ sessionId: 'x', status: 'busy', waitingFor: null, alive: false })).toBe('');
    expect(renderAgent(null)).toBe('');
  });

  it('toasts', () => {
    expect(hopToast({ kind: 'park', base: TAB, to: JOB, jobId: 'e9e4ae8e' })).toBe('fleet: 10e3 parked its work on background job e9e4ae8e, following');
    expect(hopToast({ kind: 'back', base: TAB, to: TAB, jobId: null })).toBe('fleet: work came back to 10e3');
  });

  it('follow lines', () => {
    expect(describeFollow(follow(parked(), TAB))).toBe('10e378ef → e9e4ae8e (parked on job e9e4ae8e), busy');
    expect(describeFollow(follow(busyTab, TAB))).toBe('10e378ef, busy');
    expect(describeFollow(follow(parked().slice(0, 1), TAB))).toBe('10e378ef (parked on job e9e4ae8e, which no row runs), idle');
    expect(describeFollow(follow([], TAB))).toBe('10e378ef: no registry row holds this session id');
  });
});

describe('describeFollow with a needs sentence', () => {
  it('prints it whole (the status segment cuts it; prefix O and follow do not)', () => {
    const sentence = `choose: allow or deny ${'a long command '.repeat(6)}`.trim();
    const rows = [
      r({ pid: 1, sessionId: TAB, kind: 'interactive', status: 'idle', parkedJobId: 'e9e4ae8e' }),
      r({ pid: 2, sessionId: JOB, kind: 'bg', status: 'waiting', jobId: 'e9e4ae8e', needs: sentence }),
    ];
    const f = follow(rows, TAB);
    expect(f.chain[1]?.needs).toBe(sentence);
    expect(describeFollow(f)).toBe(`10e378ef → e9e4ae8e (parked on job e9e4ae8e), ${sentence}`);
    const cut = renderAgent({ sessionId: JOB, status: 'waiting', waitingFor: null, needs: sentence, alive: true }, 40);
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(cut.endsWith('…')).toBe(true);
  });
});

describe('short ids: a UUID by its start, any other id whole up to 24', () => {
  it.each([
    ['f152b562-5b0f-4c41-9d3c-7b0a1c2d3e4f', 'f152b562', 'f152'],
    ['myagent-session-7', 'myagent-session-7', 'myagent-session-7'],
    ['me', 'me', 'me'],
    ['a-very-long-agent-session-id-0001', 'a-very-long-agent-sessi…', 'a-very-long-agent-sessi…'],
    ['bad\u001b[2Jid', 'bad [2Jid', 'bad [2Jid'],
  ])('%s -> %s / %s', (sid, eight, four) => {
    expect(sid8(sid)).toBe(eight);
    expect(shortSid(sid)).toBe(four);
  });
});

describe('what a parked job needs, from its state file (docs/hop.md#what-a-wait-is)', () => {
  const state = (tempo: string, needs: string | null = null, intent = 'slowly read the disk') => ({
    jobId: 'e9e4ae8e',
    state: 'working',
    tempo,
    needs,
    detail: null,
    intent,
    name: null,
    sessionId: JOB,
    updatedAt: null,
  });
  const withJob = (jobStatus: string | undefined, job: ReturnType<typeof state> | undefined, waitingFor?: string): LiveRow[] => {
    const [tab, jobRow] = parked(jobStatus ?? 'busy', waitingFor);
    if (jobStatus === undefined) delete jobRow!.row.status;
    return [tab!, job ? { ...jobRow!, job } : jobRow!];
  };
  const shown = (rows: LiveRow[]) => {
    const hop = hopOf('op-a', TAB, rows);
    return { text: renderAgent(hop.agent), waits: agentWaits(hop.agent) };
  };

  it.each([
    ['row waiting, state blocked: Claude Code\'s sentence', 'waiting', state('blocked', 'approve Bash: ls -la /'), 'permission prompt', 'approve Bash: ls -la /', true],
    ['row idle, state blocked (a park that has not started)', 'idle', state('blocked', 'send a prompt to start'), undefined, 'send a prompt to start', true],
    ['no row status yet, state blocked', undefined, state('blocked', 'send a prompt to start'), undefined, 'send a prompt to start', true],
    ['row idle, API error', 'idle', state('blocked', 'API unavailable — retry · API Error: 500'), undefined, 'API unavailable — retry · API Error: 500', true],
    ['row waiting, no state file: as before', 'waiting', undefined, 'permission prompt', 'waiting: permission prompt', true],
    ['row busy, state active', 'busy', state('active'), undefined, 'busy', false],
    ['no row status yet, state active: busy', undefined, state('active'), undefined, 'busy', false],
    ['no row status yet, state idle: idle', undefined, state('idle'), undefined, 'idle', false],
    ['state active with a stale needs: not a wait', 'busy', state('active', 'approve Bash: ls -la /'), undefined, 'busy', false],
    ['no row status, no state file, while parked: starting, never blank', undefined, undefined, undefined, 'starting', false],
  ])('%s', (_what, status, job, waitingFor, text, waits) => {
    expect(shown(withJob(status, job, waitingFor))).toEqual({ text, waits });
  });

  it('a session not parked, whose row has no status yet, shows nothing (no job to start)', () => {
    const hop = hopOf('op-a', TAB, [r({ pid: 1, sessionId: TAB, kind: 'interactive' })]);
    expect(renderAgent(hop.agent)).toBe('');
  });

  it('the chain link carries the job\'s needs, tempo and intent (follow --json)', () => {
    const f = follow(withJob('idle', state('blocked', 'send a prompt to start')), TAB);
    expect(f.chain[1]).toMatchObject({ status: 'idle', needs: 'send a prompt to start', tempo: 'blocked', intent: 'slowly read the disk' });
    expect(describeFollow(f)).toBe('10e378ef → e9e4ae8e (parked on job e9e4ae8e), send a prompt to start');
  });

  it('the hop with the job\'s intent, as tasks and the dashboard print it', () => {
    const hop = hopOf('op-a', TAB, withJob('busy', state('active', null, 'write a haiku\nabout tmux')));
    expect(renderHopWithIntent(hop)).toBe('10e3 → e9e4 · write a haiku about tmux');
    expect(renderHopWithIntent(hopOf('op-a', TAB, busyTab))).toBe('');
  });
});
