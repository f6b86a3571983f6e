// The supervisor's render step: from one tmux snapshot to the segment values
// of every session and the hop toasts. Reads files; starts no process.
import { PaneProofs, type PaneProof, type ProofChange } from '../ownership/pane-agents';
import { agentProcessLiveness, parseAgentProcess, type AgentProcess } from '../agents/agent-process';
import { AgentDiscovery, type Discovery } from '../agents/discover';
import { jobWindowValues } from './job-windows';
import { LivenessReader } from '../registry/liveness';
import { HopTracker } from '../registry/hop';
import { hopToast, shorten } from './hop-text';
import { ownerSid, type Task } from '../tasks/schema';
import type { TmuxSnapshot } from '../tmux/snapshot';
import { jumpHint, setOptionValue } from './snapshot-options';
import { lookAtFleet, noticesOf, updateLooks, type AgentLook } from './notices';
import { coalesce, noticeText, type Notice } from '../notify/notice';
import { parseChannels } from '../notify/notifier';
import { fleetAgents, fleetWaiters, ShownIds } from './agents';
import { agentKindSegment, agentSegment, attentionSegment, hopSegment, hopShortSegment, iconOnly, ownerSegment, styleFormats, stylesFrom } from './segments';
import type { HeldSegments, Render, RenderHint, Rendered, SegmentOption } from './segment-writes';
import { CachedFleetData, type FleetLoad } from '../fleet/data';
import { ChainKeyIndex, chainKeys, updateView, updateViewForSnapshot, type ViewUpdate } from '../fleet/update';
import { computeView, spawnLocks, type FleetView, type SessionView } from '../fleet/view';
import type { SnapshotDiff } from '../fleet/snapshot-diff';
import { planWake } from '../fleet/plan';

/**
 * How soon the proof looks again while an agent is still to be proven, or can
 * change its id without a file the supervisor watches (Codex's /clear): /proc
 * reads only, no tmux call.
 */
export const DISCOVERY_RECHECK_MS = 2000;

/** The extra formats the supervisor's snapshot asks for: style options, the poll interval, the notification options. */
export function supervisorFormats(): Record<string, string> {
  return { ...styleFormats(), interval: '#{@fleet-interval}', notify: '#{@fleet-notify}', notifyCommand: '#{@fleet-notify-command}', attentionKey: '#{@fleet-attention-key}' };
}

/**
 * `onData`: the tasks, rows, pid checks and pane proof of every wake (the
 * supervisor watches the pids for deaths, records Drivers' processes and sets
 * the stamps the proof calls for).
 */
export function makeRender(
  home: string,
  registry: string,
  onData?: (data: FleetLoad, proof: PaneProof, stampPids: number[]) => void,
  liveness: LivenessReader = new LivenessReader(),
): Render {
  const tracker = new HopTracker();
  const source = new CachedFleetData(home, registry, liveness);
  // Per session of a wake: the listing of /proc its liveness read already made, not one more each.
  const running = (pid: number) => liveness.running(pid);
  const proofs = new PaneProofs();
  const discovery = new AgentDiscovery();
  // A stamp's recorded process, from the reader's cached /proc stats (docs/budgets.md).
  const processLiveness = (p: AgentProcess) => agentProcessLiveness(p, (pid) => liveness.stat(pid));
  /** The waits seen at the last render (null before the first): a wait not in it is new and toasts once. */
  let waits: Set<string> | null = null;
  /** The fleet's agents as the last render saw them (null before the first): a change is a notice (docs/notify.md#events). */
  let looks: Map<string, AgentLook> | null = null;
  /**
   * The last render, for a wake that only rows or job states changed
   * (docs/status.md#incremental-wakes): its
   * snapshot (the supervisor hands the same object back while tmux is not
   * read again), view, values, discovery and proof.
   */
  let last: {
    snapshot: TmuxSnapshot;
    view: FleetView;
    values: Map<string, Record<SegmentOption, string>>;
    found: Discovery;
    gone: ReadonlySet<string>;
    stampPids: number[];
  } | null = null;
  /** Per session id a view was computed for (stamps, owners): the ids of its chain then. */
  const keysOf = new ChainKeyIndex();
  /** The ids the view's rows show, moved only for the sessions and tasks a wake computed again. */
  const shown = new ShownIds();
  return async (snapshot: TmuxSnapshot, hint: RenderHint, held?: HeldSegments): Promise<Rendered> => {
    const rowsReadBefore = source.rowsRead;
    // Before the task files: a spawn between its tmux call and its record's write holds the task's lock (spawnLocks).
    const spawnLocked = spawnLocks(home, snapshot, source.tasksLastRead);
    const died = hint.died ?? new Set<number>();
    const data = await source.load(!hint.registryOnly, hint.registryChanged, hint.jobsChanged, hint.tasksChanged ?? null, hint.signalsChanged ?? null, died);
    // What this wake computes again (src/fleet/plan.ts: the dependency rules).
    const plan = planWake(hint, data.touched, last, snapshot);
    const touched = plan.mode === 'full' ? null : plan.touched;
    // Only rows, job states or signals changed (the same snapshot): the sessions they touch are computed again.
    const prev = plan.mode === 'rows' ? plan.base : null;
    // A new snapshot with the same tasks: only the sessions it changed, and what depends on them, are computed again.
    const diff = plan.mode === 'tmux' ? plan.diff : null;
    const tmuxPrev = plan.mode === 'tmux' ? plan.base : null;
    /** The last render an incremental wake starts from. */
    const base = plan.mode === 'full' ? null : plan.base;
    // Built only when the proof asks (a wake for changed rows rarely does).
    let bySlug: Map<string, Task | null> | null = null;
    const driverPidOf = (slug: string, stamp: string): number | null => {
      bySlug ??= new Map(data.tasks.map((t) => [t.slug, t.task ?? null]));
      const task = bySlug.get(slug);
      return task && ownerSid(task) === stamp && task.driverPid !== undefined ? task.driverPid : null;
    };
    // Built once a wake, and only when asked for.
    let pidsInRegistry: Set<number> | null = null;
    const registryPids = () => (pidsInRegistry ??= new Set(data.rows.filter((r) => r.liveness !== 'gone').map((r) => r.row.pid)));
    // Agents that write no registry row here (Codex CLI, Gemini CLI, a Claude Code of another home), under the panes of the sessions that matter.
    const discoverUnder = (only: ((session: string) => boolean) | null): Discovery => {
      const watched = new Map<string, boolean>();
      for (const s of snapshot.sessions) {
        if ((only === null || only(s.name)) && (s.stamp !== '' || s.task !== '' || s.nonce !== '')) watched.set(s.name, s.stamp !== '');
      }
      const panes = snapshot.panes.filter((p) => watched.has(p.session)).map((p) => ({ session: p.session, id: p.id, pid: p.pid, stamped: watched.get(p.session) }));
      return panes.length > 0 ? discovery.discover(panes, registryPids()) : { rows: [], sessionOfRow: new Map(), kinds: new Map(), unprovable: new Map(), recheck: false };
    };
    // A Claude Code now in the registry is left to its row.
    const withoutRegistered = (d: Discovery): Discovery => {
      const inRegistry = d.rows.some((r) => r.agent === 'claude') ? registryPids() : null;
      return inRegistry ? { ...d, rows: d.rows.filter((r) => r.agent !== 'claude' || !inRegistry.has(r.row.pid)) } : d;
    };
    let found: Discovery;
    if (tmuxPrev && diff) {
      // The processes under the unchanged sessions' panes are as the last look found them, and a renamed session's under its
      // new name (the same panes); the changed sessions' are looked at.
      const lookAt = (session: string) => diff.changed.has(session) && !diff.renamed.has(session);
      found = withoutRegistered(mergeDiscovery(tmuxPrev.found, diff, discoverUnder(lookAt)));
    } else if (prev) {
      // Only rows changed: the processes under the panes are as the last look found them.
      found = withoutRegistered(prev.found);
    } else {
      found = discoverUnder(null);
    }
    const proofRows = found.rows.length > 0 ? [...data.rows, ...found.rows] : data.rows;
    // The proof follows the plan: the sessions the snapshot diff names, the rows that changed, or every session.
    const proofChange: ProofChange =
      diff && touched !== null
        ? { kind: 'sessions', redo: diff.changed, removed: diff.removed, touched }
        : prev && touched !== null && data.changed && found.rows.length === prev.found.rows.length
          ? { kind: 'rows', before: data.changed.before.map((r) => r.pid), after: data.changed.after, touched }
          : { kind: 'all' };
    const proof = proofs.prove({ sessions: snapshot.sessions, panes: snapshot.panes, rows: proofRows }, proofChange, { driverPidOf, running });
    // A spawn in progress either writes its record (a task change wakes the supervisor) or dies: then its lock is stale
    // and nothing else changes, so the proof looks again.
    if (found.recheck || spawnLocked.size > 0) {
      const at = Date.now() + DISCOVERY_RECHECK_MS;
      proof.recheckAt = proof.recheckAt === null ? at : Math.min(proof.recheckAt, at);
    }
    // The processes the stamps recorded: a death there changes a liveness without touching a file.
    const stampPids = prev
      ? died.size > 0
        ? prev.stampPids.filter((pid) => !died.has(pid))
        : prev.stampPids
      : snapshot.sessions.flatMap((s) => {
          const p = s.stamp !== '' && s.agentProc ? parseAgentProcess(s.agentProc) : null;
          // Only those that run now: the poll wakes when one of them stops.
          return p && running(p.pid) ? [p.pid] : [];
        });
    onData?.(data, proof, stampPids);
    const proofArgs = { agentGone: proof.gone, unprovable: found.unprovable, kinds: found.kinds, processLiveness, spawnLocked };
    let view: FleetView;
    let redo: ReadonlySet<string> | null = null;
    let redone: ReadonlyMap<string, SessionView> | null = null;
    let cleared: ReadonlySet<string> = new Set();
    if (base && touched !== null) {
      const goneChanged = new Set([...proof.gone, ...base.gone].filter((name) => proof.gone.has(name) !== base.gone.has(name)));
      const chainsHit = keysOf.touchedBy(touched);
      const hitSids = new Set(chainsHit);
      for (const id of touched) hitSids.add(id);
      let update: ViewUpdate;
      if (diff) {
        const u = updateViewForSnapshot(base.view, snapshot, data, tracker, proofArgs, diff, hitSids, goneChanged);
        cleared = u.cleared;
        // A stamp new to the fleet (a stamp set, a session created): its chain's ids from now on.
        for (const s of u.redone.values()) if (s.stamp !== '' && !keysOf.has(s.stamp)) keysOf.set(s.stamp, chainKeys(s.stamp, data.rows));
        shown.apply(u.view, { kind: 'sessions', dropped: u.dropped, added: u.redone.values() });
        update = u;
      } else {
        update = updateView(base.view, snapshot, data, tracker, proofArgs, hitSids, goneChanged);
        shown.apply(update.view, { kind: 'rows' });
      }
      view = update.view;
      redo = update.sessions;
      redone = update.redone;
      // The chains that were touched may have moved: their ids as they are now.
      for (const sid of chainsHit) keysOf.set(sid, chainKeys(sid, data.rows));
    } else {
      view = computeView(snapshot, data, tracker, proofArgs);
      keysOf.clear();
      for (const s of view.sessions) if (s.stamp !== '') keysOf.set(s.stamp, chainKeys(s.stamp, data.rows));
      for (const t of view.tasks) if (t.owner !== '' && !keysOf.has(t.owner)) keysOf.set(t.owner, chainKeys(t.owner, data.rows));
      shown.apply(view, { kind: 'all' });
    }
    const styles = stylesFrom(snapshot.config);
    // Attention across the fleet (docs/status.md#attention): the same value in every session.
    const waiters = fleetWaiters(view, fleetAgents(view, data.rows, proof.agents, shown, true));
    // What this wake tells the person (docs/notify.md#events): a new wait, a turn finished, a failure.
    const agentPane = (session: string): string | null => proof.agents.get(session)?.[0]?.pane ?? found.kinds.get(session)?.pane ?? null;
    let notices: Notice[];
    if (looks !== null && base && redone) {
      // Only the sessions and tasks computed again can look different: their looks changed in place, not the fleet's made anew.
      const gone = diff ? [...cleared, ...diff.removed] : [...cleared];
      const tasks = view.tasks.filter((t, i) => t !== base.view.tasks[i]);
      const before = updateLooks(looks, { sessions: redone.values(), gone, tasks }, (name) => proof.gone.has(name));
      notices = noticesOf(before, looks, waits, waiters, agentPane, before.keys());
    } else {
      const nowLooks = lookAtFleet(view);
      notices = noticesOf(looks, nowLooks, waits, waiters, agentPane);
      looks = nowLooks;
    }
    // The sessions a client shows now: nothing is told about them, and what was unseen there is seen.
    const shownNow = new Set(snapshot.clients.filter((c) => c.control !== '1').map((c) => c.session));
    const stamp = Math.floor(Date.now() / 1000);
    const marks = new Map<string, string>();
    for (const n of notices) if (n.kind !== 'wait' && n.session !== null && !shownNow.has(n.session)) marks.set(n.session, `${stamp} ${noticeText(n)}`);
    // The mark tmux holds: the snapshot's, unless this supervisor wrote one since it was read.
    const unseenOf = (name: string, read: string) => (shownNow.has(name) ? '' : (marks.get(name) ?? held?.wrote(name, '@fleet-unseen') ?? read));
    const segmentsOf = (s: SessionView): Record<SegmentOption, string> => ({
      '@fleet-owner': s.slug && s.decision ? ownerSegment(s.slug, s.decision, styles, s.agentGone, s.unprovable !== null) : '',
      '@fleet-hop': hopSegment(s.hop, styles),
      '@fleet-agent': agentSegment(s.state, styles) || agentKindSegment(s.agent, styles),
      '@fleet-hop-short': hopShortSegment(s.hop, styles),
      '@fleet-agent-short': agentSegment(s.state, styles, true) || agentKindSegment(s.agent, styles),
      '@fleet-unseen': unseenOf(s.session, s.unseen),
    });
    let values: Map<string, Record<SegmentOption, string>>;
    let dirty: Set<string> | undefined;
    const none = { '@fleet-owner': '', '@fleet-hop': '', '@fleet-agent': '', '@fleet-hop-short': '', '@fleet-agent-short': '' };
    /** The sessions whose values this render set. */
    const set = new Set<string>();
    if (base && redo && redone) {
      // The sessions not computed again keep their values.
      values = base.values;
      if (diff) for (const name of diff.removed) values.delete(name);
      for (const name of cleared) {
        values.set(name, { ...none, '@fleet-unseen': unseenOf(name, values.get(name)?.['@fleet-unseen'] ?? '') });
        set.add(name);
      }
      for (const [name, s] of redone) {
        values.set(name, segmentsOf(s));
        set.add(name);
      }
      // A mark on a session not computed again (a job's turn ended, told under the session that parked it).
      for (const [name, mark] of marks) {
        const v = values.get(name);
        if (v && v['@fleet-unseen'] !== mark) {
          v['@fleet-unseen'] = mark;
          set.add(name);
        }
      }
      // A new snapshot is compared whole by the supervisor.
      if (prev) dirty = new Set([...redo, ...set]);
    } else {
      values = new Map();
      for (const x of snapshot.sessions) values.set(x.name, { ...none, '@fleet-unseen': unseenOf(x.name, x.unseen) });
      for (const s of view.sessions) values.set(s.session, segmentsOf(s));
    }
    let unseen = 0;
    for (const v of values.values()) if (v['@fleet-unseen'] !== '') unseen++;
    // The fleet's, in one global option (docs/status.md#attention): a new count is one write, not one per session.
    const attention = attentionSegment(waiters.length, styles, unseen);
    // The agent's window of each session marked unseen: its own status shows it too (#{fleet_window}, docs/notify.md#unseen).
    const unseenWindows = new Map<string, { session: string; value: string }>();
    if (unseen > 0) {
      const windowOf = new Map(snapshot.panes.map((p) => [p.id, p.window]));
      const firstWindow = new Map<string, string>();
      for (const p of snapshot.panes) if (!firstWindow.has(p.session)) firstWindow.set(p.session, p.window);
      const mark = iconOnly(styles.done, 'done');
      for (const [name, v] of values) {
        if (v['@fleet-unseen'] === '') continue;
        const pane = agentPane(name);
        const window = (pane !== null ? windowOf.get(pane) : undefined) ?? firstWindow.get(name);
        if (window) unseenWindows.set(window, { session: name, value: mark });
      }
    }
    const toasts = view.events.map((e) => ({ session: e.session, text: hopToast(e) }));
    const channels = parseChannels(setOptionValue(snapshot.config, '@fleet-notify', 'notify')).channels;
    if (channels.has('toast') && notices.length > 0) {
      const hint = jumpHint(setOptionValue(snapshot.config, '@fleet-attention-key', 'attentionKey'));
      const toast = (mine: typeof notices) => `fleet: ${shorten(coalesce(mine), 100)} (${hint})`;
      // Each session's clients: what is not about that session (a job runs in none of its session's panes). A session
      // no notice names gets every one: that text is made once, not once per session.
      const named = new Set(notices.filter((n) => !n.job && n.session !== null).map((n) => n.session));
      const every = named.size < snapshot.sessions.length ? toast(notices) : '';
      for (const x of snapshot.sessions) {
        const mine = named.has(x.name) ? notices.filter((n) => n.session !== x.name || !!n.job) : notices;
        if (mine.length > 0) toasts.push({ session: x.name, text: mine === notices ? every : toast(mine) });
      }
    }
    waits = new Set(waiters.map((w) => w.key));
    const windows = jobWindowValues(
      snapshot.panes,
      { tasks: data.tasks, rows: data.rows, registryReadable: data.registry.readable, recorded: data.recorded },
      styles,
    );
    last = { snapshot, view, values, found, gone: proof.gone, stampPids };
    return {
      values,
      attention,
      toasts,
      windows,
      notices,
      waits,
      unseenWindows,
      rowsRead: source.rowsRead - rowsReadBefore,
      ...(redo ? { recomputed: redo.size } : {}),
      ...(dirty ? { dirty } : {}),
    };
  };
}

/**
 * The last discovery for a new snapshot: the sessions the diff changed or
 * removed dropped, a renamed one's findings moved to its new name, and `fresh`
 * (the changed sessions looked at again) added.
 */
function mergeDiscovery(last: Discovery, diff: SnapshotDiff, fresh: Discovery): Discovery {
  const out: Discovery = { rows: [], sessionOfRow: new Map(), kinds: new Map(), unprovable: new Map(), recheck: last.recheck || fresh.recheck };
  const newName = new Map([...diff.renamed].map(([to, from]) => [from, to]));
  // Where a session's findings go: itself, its new name, or nowhere.
  const place = (session: string): string | null => newName.get(session) ?? (diff.changed.has(session) || diff.removed.has(session) ? null : session);
  for (const r of last.rows) {
    const was = last.sessionOfRow.get(r);
    const session = was === undefined ? undefined : place(was);
    if (session === null) continue;
    out.rows.push(r);
    if (session !== undefined) out.sessionOfRow.set(r, session);
  }
  for (const [was, kind] of last.kinds) {
    const session = place(was);
    if (session !== null) out.kinds.set(session, kind);
  }
  for (const [was, why] of last.unprovable) {
    const session = place(was);
    if (session !== null) out.unprovable.set(session, why);
  }
  for (const r of fresh.rows) {
    out.rows.push(r);
    out.sessionOfRow.set(r, fresh.sessionOfRow.get(r) as string);
  }
  for (const [session, kind] of fresh.kinds) out.kinds.set(session, kind);
  for (const [session, why] of fresh.unprovable) out.unprovable.set(session, why);
  return out;
}
