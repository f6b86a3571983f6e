// The pane proof: which agent runs in which pane, by process ancestry; the
// stamp it calls for; when a stamped agent is gone. Pure tables, then the
// ancestry walk on real processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AncestryCache,
  matchPaneAgents,
  PaneProofs,
  stampActionFor,
  stampedAgentGone,
  STAMP_SETTLE_MS,
  type PaneAgent,
  type SessionFacts,
} from '../../src/ownership/pane-agents';
import { procStartTicks } from '../../src/proc';
import { withLiveness, type Liveness, type LiveRow } from '../../src/registry/liveness';
import type { RegistryRow } from '../../src/registry/schema';
import { waitFor } from '../helpers/env';

/** Epoch milliseconds, as the registry writes them. */
const T = 1_796_000_000_000;
const S1 = 'aaaa1111-0000-4000-8000-000000000001';
const S2 = 'bbbb2222-0000-4000-8000-000000000002';
const row = (pid: number, sessionId: string, liveness: Liveness = 'live', extra: Partial<RegistryRow> = {}): LiveRow =>
  withLiveness({ pid, sessionId, updatedAt: T + 2000, ...extra }, liveness);
const agent = (pid: number, sessionId: string, extra: Partial<RegistryRow> = {}): PaneAgent => ({
  row: { pid, sessionId, updatedAt: T + 2000, ...extra },
  kind: 'claude',
  firstStampOnly: false,
  session: 'op-t',
  pane: '%1',
  depth: 0,
});
const facts = (over: Partial<SessionFacts> = {}): SessionFacts => ({ session: 'op-t', stamp: '', bound: true, stampSeenAt: T + 1000, ...over });

/** A proof of every session (driverPidOf: no task recorded a process). */
function proveAll(proofs: PaneProofs, sessions: Parameters<PaneProofs['prove']>[0]['sessions'], panes: Parameters<PaneProofs['prove']>[0]['panes'], rows: Parameters<PaneProofs['prove']>[0]['rows'], running: (pid: number) => boolean, now: number) {
  return proofs.prove({ sessions, panes, rows }, { kind: 'all' }, { driverPidOf: () => null, running, now });
}

describe('stampActionFor', () => {
  it.each<[string, SessionFacts, PaneAgent[], number | null, { sid: string; source: string } | null]>([
    ['pending, an agent under the pane: stamp it', facts(), [agent(10, S1)], null, { sid: S1, source: 'startup' }],
    ['pending, no agent', facts(), [], null, null],
    ['not bound to a task nor spawned: never stamped by the supervisor', facts({ bound: false }), [agent(10, S1)], null, null],
    ['the stamp is held under the pane: agree, nothing to do', facts({ stamp: S1 }), [agent(10, S1)], 10, null],
    ['/clear: the same process holds a new id, written after the stamp', facts({ stamp: S1 }), [agent(10, S2)], 10, { sid: S2, source: 'clear' }],
    ['another process holds a new id: a new agent, not a clear', facts({ stamp: S1 }), [agent(11, S2)], 10, { sid: S2, source: 'startup' }],
    ['the row is older than the stamp (a hook stamped first): keep the stamp', facts({ stamp: S1, stampSeenAt: T + 3000, now: T + 3500 }), [agent(10, S2)], 10, null],
    ['an old row under a settled stamp (2.1.197 keeps updatedAt on /clear): followed', facts({ stamp: S1, stampSeenAt: T + 3000, now: T + 9000 }), [agent(10, S2)], 10, { sid: S2, source: 'clear' }],
    ["never back to one of the session's earlier stamps", facts({ stamp: S1, earlier: new Set([S2]), now: T + 99_000 }), [agent(10, S2)], 10, null],
    ['the stamp is held by one agent among several: keep it', facts({ stamp: S1 }), [agent(11, S2), agent(10, S1)], 10, null],
  ])('%s', (_name, f, agents, stampPid, want) => {
    const got = stampActionFor(f, agents, stampPid);
    expect(got === null ? null : { sid: got.sid, source: got.source }).toEqual(want);
  });
});

describe('stampedAgentGone', () => {
  it.each<[string, string, LiveRow[], PaneAgent[], 'running' | 'exited' | null, boolean]>([
    ['unstamped', '', [], [], null, false],
    ['held under the pane', S1, [row(10, S1)], [agent(10, S1)], 'running', false],
    ['its rows are all dead', S1, [row(10, S1, 'gone')], [], null, true],
    ['its row is gone and its known process exited (a shell remains)', S1, [], [], 'exited', true],
    ['another agent runs in the pane, the stamped one exited', S1, [], [agent(11, S2)], 'exited', true],
    ['no row ever held it and no process is known (an agent without a registry)', S1, [], [], null, false],
    ['a live row still holds it: a live process keeps its stamp', S1, [row(12, S1)], [], 'exited', false],
    ['a row of another pid domain (unknown) is not proof of death', S1, [row(12, S1, 'unknown')], [], null, false],
  ])('%s', (_name, stamp, rows, agents, proc, want) => {
    expect(stampedAgentGone(stamp, rows, agents, proc)).toBe(want);
  });
});

describe('matchPaneAgents on real processes', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

  /** A shell (the pane's process) with a sleep under it (the agent); returns both pids. */
  async function paneWithAgent(): Promise<{ shell: number; agentPid: number }> {
    const sh = spawn('sh', ['-c', 'sleep 60 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(sh);
    const agentPid = await new Promise<number>((resolve) => sh.stdout.once('data', (b: Buffer) => resolve(Number(String(b).trim()))));
    await waitFor(() => procStartTicks(agentPid) !== null, 'the agent process');
    return { shell: sh.pid as number, agentPid };
  }

  it('matches a row whose process descends from the pane, never one that only names the pane in its tmux field', async () => {
    const a = await paneWithAgent();
    const b = await paneWithAgent();
    const panes = [
      { session: 'op-a', id: '%1', pid: String(a.shell) },
      { session: 'op-b', id: '%2', pid: String(b.shell) },
    ];
    const rows = [
      row(a.agentPid, S1, 'live', { kind: 'interactive', tmux: 'op-a:@1.%1' }),
      // The field says op-a; the process runs under op-b's pane.
      row(b.agentPid, S2, 'live', { kind: 'interactive', tmux: 'op-a:@1.%1' }),
      // A process under no pane at all, naming op-a.
      row(process.pid, 'cccc3333-0000-4000-8000-000000000003', 'live', { tmux: 'op-a:@1.%1' }),
      // A background job started from the pane is not the pane's agent.
      row(a.agentPid, 'dddd4444-0000-4000-8000-000000000004', 'live', { kind: 'bg' }),
      // A dead row is no agent.
      row(a.agentPid, 'eeee5555-0000-4000-8000-000000000005', 'gone'),
    ];
    const cache = new AncestryCache();
    const got = matchPaneAgents(panes, rows, cache);
    expect([...got.entries()].map(([s, list]) => [s, list.map((x) => [x.row.sessionId, x.pane, x.depth])])).toEqual([
      ['op-a', [[S1, '%1', 1]]],
      ['op-b', [[S2, '%2', 1]]],
    ]);
    // Walked once per process, kept while it runs.
    const size = cache.size;
    matchPaneAgents(panes, rows, cache);
    expect(cache.size).toBe(size);
  });

  it('PaneProofs.prove after a new snapshot proves again the sessions it changed and those whose agents moved, as a full update would', async () => {
    const a = await paneWithAgent();
    const b = await paneWithAgent();
    const proofs = new PaneProofs();
    const never = () => null;
    const panes = [
      { session: 'op-a', id: '%1', pid: String(a.shell) },
      { session: 'op-b', id: '%2', pid: String(b.shell) },
    ];
    const nonce = 'n'.repeat(32);
    const rows = [row(a.agentPid, S1, 'live', { updatedAt: T + 1000 })];
    // op-b is bound and waits for its agent's first row.
    const sessions = [
      { name: 'op-a', stamp: S1, nonce, task: 't1' },
      { name: 'op-b', stamp: '', nonce, task: 't2' },
    ];
    expect(proveAll(proofs, sessions, panes, rows, () => true, T + 5000).actions).toEqual([]);
    // op-a renamed op-c (same pane), and in the same wake op-b's agent writes its row (an id no session holds).
    const renamed = [{ ...sessions[1]! }, { ...sessions[0]!, name: 'op-c' }];
    const panesNow = [panes[1]!, { ...panes[0]!, session: 'op-c' }];
    const rowsNow = [...rows, row(b.agentPid, S2, 'live', { updatedAt: T + 6000 })];
    const got = proofs.prove({ sessions: renamed, panes: panesNow, rows: rowsNow }, { kind: 'sessions', redo: new Set(['op-c']), removed: new Set(['op-a']), touched: new Set([S2]) }, { driverPidOf: never, running: () => true, now: T + 6500 });
    expect(got.actions).toEqual([expect.objectContaining({ session: 'op-b', pane: '%2', sid: S2, source: 'startup' })]);
    expect([...got.proven].sort()).toEqual(['op-b', 'op-c']);
    expect([...got.agents.keys()].sort()).toEqual(['op-b', 'op-c']);
    const full = proveAll(new PaneProofs(), renamed, panesNow, rowsNow, () => true, T + 6500);
    expect([got.actions, [...got.gone]]).toEqual([full.actions, [...full.gone]]);
    // Nothing changed: nothing proven again.
    const still = proofs.prove({ sessions: renamed, panes: panesNow, rows: rowsNow }, { kind: 'sessions', redo: new Set(), removed: new Set(), touched: new Set() }, { driverPidOf: never, running: () => true, now: T + 7000 });
    expect([still.proven.size, still.actions]).toEqual([0, []]);
  });

  it('PaneProofs: a pending bound session is stamped, then a /clear (same pid, new id) is followed', async () => {
    const a = await paneWithAgent();
    const proofs = new PaneProofs();
    const panes = [{ session: 'op-t', id: '%7', pid: String(a.shell) }];
    const session = { name: 'op-t', stamp: '', nonce: 'n'.repeat(32), task: 't' };
    const first = proveAll(proofs, [session], panes, [row(a.agentPid, S1, 'live', { updatedAt: T + 1000 })], () => true, T + 5000);
    expect(first.actions).toEqual([expect.objectContaining({ session: 'op-t', pane: '%7', sid: S1, kind: 'claude', source: 'startup' })]);
    const agree = proveAll(proofs, [{ ...session, stamp: S1 }], panes, [row(a.agentPid, S1, 'live', { updatedAt: T + 1000 })], () => true, T + 6000);
    expect(agree.actions).toEqual([]);
    const cleared = proveAll(proofs, [{ ...session, stamp: S1 }], panes, [row(a.agentPid, S2, 'live', { updatedAt: T + 7000 })], () => true, T + 7500);
    expect(cleared.actions).toEqual([expect.objectContaining({ session: 'op-t', pane: '%7', sid: S2, kind: 'claude', source: 'clear' })]);
    // Right after a stamp, another id under the pane waits for the stamp to settle, and says when.
    const S3 = 'cccc3333-0000-4000-8000-000000000003';
    const early = proveAll(proofs, [{ ...session, stamp: S2 }], panes, [row(a.agentPid, S3, 'live', { updatedAt: T + 7000 })], () => true, T + 7600);
    expect(early.actions).toEqual([]);
    expect(early.recheckAt).toBe(T + 7600 + STAMP_SETTLE_MS);
    // An earlier stamp of the session under the pane: never gone back to, nothing to wait for.
    const back = proveAll(proofs, [{ ...session, stamp: S2 }], panes, [row(a.agentPid, S1, 'live', { updatedAt: T + 7000 })], () => true, T + 7700);
    expect([back.actions, back.recheckAt]).toEqual([[], null]);
    // The agent exits, its row removed: the stamped agent is gone.
    const exited = proveAll(proofs, [{ ...session, stamp: S2 }], panes, [], () => false, T + 8000);
    expect(exited.gone.has('op-t')).toBe(false); // S2 was never seen live under the pane: nothing known
    const seen = proveAll(proofs, [{ ...session, stamp: S2 }], panes, [row(a.agentPid, S2)], () => true, T + 8500);
    expect(seen.gone.has('op-t')).toBe(false);
    const gone = proveAll(proofs, [{ ...session, stamp: S2 }], panes, [], (pid) => pid !== a.agentPid, T + 9000);
    expect(gone.gone.has('op-t')).toBe(true);
  });
});
