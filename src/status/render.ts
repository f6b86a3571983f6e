// The supervisor's render step: from one tmux snapshot to the segment values
// of every session and the hop toasts. Reads files; starts no process.
import { PaneProofs, type PaneProof } from '../ownership/pane-agents';
import { agentProcessLiveness, parseAgentProcess, type AgentProcess } from '../agents/agent-process';
import { AgentDiscovery, type Discovery } from '../agents/discover';
import { jobWindowValues } from './job-windows';
import { LivenessReader } from '../registry/liveness';
import { HopTracker } from '../registry/hop';
import { hopToast, shorten } from './hop-text';
import { ownerSid, type Task } from '../tasks/schema';
import type { TmuxSnapshot } from '../tmux/snapshot';
import { fleetAgents, fleetWaiters, ShownIds } from './agents';
import { agentKindSegment, agentSegment, attentionSegment, hopSegment, hopShortSegment, ownerSegment, styleFormats, stylesFrom } from './segments';
import type { Render, RenderHint, Rendered, SegmentOption } from './segment-writes';
import { CachedFleetData, ChainKeyIndex, chainKeys, computeView, updateView, type FleetLoad, type FleetView, type SessionView } from './view';

/**
 * How soon the proof looks again while an agent is still to be proven, or can
 * change its id without a file the supervisor watches (Codex's /clear): /proc
 * reads only, no tmux call.
 */
export const DISCOVERY_RECHECK_MS = 2000;

/** The extra formats the supervisor's snapshot asks for: style options and the poll interval. */
export function supervisorFormats(): Record<string, string> {
  return { ...styleFormats(), interval: '#{@fleet-interval}' };
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
    attention: string;
    found: Discovery;
    gone: ReadonlySet<string>;
    stampPids: number[];
  } | null = null;
  /** Per session id a view was computed for (stamps, owners): the ids of its chain then. */
  const keysOf = new ChainKeyIndex();
  /** The ids the view's rows show, moved only for the sessions and tasks a wake computed again. */
  const shown = new ShownIds();
  return async (snapshot: TmuxSnapshot, hint: RenderHint): Promise<Rendered> => {
    const rowsReadBefore = source.rowsRead;
    const data = await source.load(!hint.registryOnly, hint.registryChanged, hint.jobsChanged);
    const prev = hint.registryOnly && !hint.recheck && data.touched !== null && last?.snapshot === snapshot ? last : null;
    // Built only when the proof asks (a wake for changed rows rarely does).
    let bySlug: Map<string, Task | null> | null = null;
    const driverPidOf = (slug: string, stamp: string): number | null => {
      bySlug ??= new Map(data.tasks.map((t) => [t.slug, t.task ?? null]));
      const task = bySlug.get(slug);
      return task && ownerSid(task) === stamp && task.driverPid !== undefined ? task.driverPid : null;
    };
    const registryPids = () => new Set(data.rows.filter((r) => r.liveness !== 'gone').map((r) => r.row.pid));
    let found: Discovery;
    if (prev) {
      // Only rows changed: the processes under the panes are as the last look found them (a Claude Code now in the registry is left to its row).
      const inRegistry = prev.found.rows.some((r) => r.agent === 'claude') ? registryPids() : null;
      found = inRegistry ? { ...prev.found, rows: prev.found.rows.filter((r) => r.agent !== 'claude' || !inRegistry.has(r.row.pid)) } : prev.found;
    } else {
      // Agents that write no registry row here (Codex CLI, Gemini CLI, a Claude Code of another home), under the panes that matter.
      const watched = new Map(snapshot.sessions.filter((s) => s.stamp !== '' || s.task !== '' || s.nonce !== '').map((s) => [s.name, s.stamp !== '']));
      found = discovery.discover(
        snapshot.panes.filter((p) => watched.has(p.session)).map((p) => ({ session: p.session, pid: p.pid, stamped: watched.get(p.session) })),
        registryPids(),
      );
    }
    const proofRows = found.rows.length > 0 ? [...data.rows, ...found.rows] : data.rows;
    const proof =
      prev && data.touched !== null && data.changed && found.rows.length === prev.found.rows.length
        ? proofs.updateChanged(
            snapshot.sessions,
            snapshot.panes,
            proofRows,
            { before: data.changed.before.map((r) => r.pid), after: data.changed.after, touched: data.touched },
            driverPidOf,
            running,
          )
        : proofs.update(snapshot.sessions, snapshot.panes, proofRows, driverPidOf, running);
    if (found.recheck) {
      const at = Date.now() + DISCOVERY_RECHECK_MS;
      proof.recheckAt = proof.recheckAt === null ? at : Math.min(proof.recheckAt, at);
    }
    // The processes the stamps recorded: a death there changes a liveness without touching a file.
    const stampPids = prev
      ? prev.stampPids
      : snapshot.sessions.flatMap((s) => {
          const p = s.stamp !== '' && s.agentProc ? parseAgentProcess(s.agentProc) : null;
          // Only those that run now: the poll wakes when one of them stops.
          return p && running(p.pid) ? [p.pid] : [];
        });
    onData?.(data, proof, stampPids);
    const proofArgs = { agentGone: proof.gone, unprovable: found.unprovable, kinds: found.kinds, processLiveness };
    let view: FleetView;
    let redo: ReadonlySet<string> | null = null;
    let redone: ReadonlyMap<string, SessionView> | null = null;
    if (prev && data.touched !== null) {
      const goneChanged = new Set([...proof.gone, ...prev.gone].filter((name) => proof.gone.has(name) !== prev.gone.has(name)));
      const chainsHit = keysOf.touchedBy(data.touched);
      const hitSids = new Set(chainsHit);
      for (const id of data.touched) hitSids.add(id);
      const update = updateView(prev.view, snapshot, data, tracker, proofArgs, hitSids, goneChanged);
      view = update.view;
      redo = update.sessions;
      redone = update.redone;
      // The chains that were touched may have moved: their ids as they are now.
      for (const sid of chainsHit) keysOf.set(sid, chainKeys(sid, data.rows));
      shown.update(view);
    } else {
      view = computeView(snapshot, data, tracker, proofArgs);
      keysOf.clear();
      for (const s of view.sessions) if (s.stamp !== '') keysOf.set(s.stamp, chainKeys(s.stamp, data.rows));
      for (const t of view.tasks) if (t.owner !== '' && !keysOf.has(t.owner)) keysOf.set(t.owner, chainKeys(t.owner, data.rows));
      shown.reset(view);
    }
    const styles = stylesFrom(snapshot.config);
    // Attention across the fleet (docs/status.md#attention): the same value in every session.
    const waiters = fleetWaiters(view, fleetAgents(view, data.rows, proof.agents, shown, true));
    const attention = attentionSegment(waiters.length, styles);
    const segmentsOf = (s: SessionView): Record<SegmentOption, string> => ({
      '@fleet-owner': s.slug && s.decision ? ownerSegment(s.slug, s.decision, styles, s.agentGone, s.unprovable !== null) : '',
      '@fleet-hop': hopSegment(s.hop, styles),
      '@fleet-agent': agentSegment(s.hop, styles) || agentKindSegment(s.agent, styles),
      '@fleet-attention': attention,
      '@fleet-hop-short': hopShortSegment(s.hop, styles),
      '@fleet-agent-short': agentSegment(s.hop, styles, true) || agentKindSegment(s.agent, styles),
    });
    let values: Map<string, Record<SegmentOption, string>>;
    let dirty: ReadonlySet<string> | undefined;
    if (prev && redo && redone) {
      // The sessions not computed again keep their values; attention is the fleet's, so a new count goes to all of them.
      values = prev.values;
      for (const [name, s] of redone) values.set(name, segmentsOf(s));
      if (attention !== prev.attention) for (const v of values.values()) v['@fleet-attention'] = attention;
      else dirty = redo;
    } else {
      values = new Map();
      const none = { '@fleet-owner': '', '@fleet-hop': '', '@fleet-agent': '', '@fleet-hop-short': '', '@fleet-agent-short': '' };
      for (const s of snapshot.sessions) values.set(s.name, { ...none, '@fleet-attention': attention });
      for (const s of view.sessions) values.set(s.session, segmentsOf(s));
    }
    const toasts = view.events.map((e) => ({ session: e.session, text: hopToast(e) }));
    const now = new Set(waiters.map((w) => w.key));
    if (waits !== null) {
      for (const w of waiters) {
        if (waits.has(w.key)) continue;
        for (const s of snapshot.sessions) toasts.push({ session: s.name, text: `fleet: ${w.who} waits: ${shorten(w.what, 100)}` });
      }
    }
    waits = now;
    const windows = jobWindowValues(
      snapshot.panes,
      { tasks: data.tasks, rows: data.rows, registryReadable: data.registry.readable, recorded: data.recorded },
      styles,
    );
    last = { snapshot, view, values, attention, found, gone: proof.gone, stampPids };
    return { values, toasts, windows, rowsRead: source.rowsRead - rowsReadBefore, ...(redo ? { recomputed: redo.size } : {}), ...(dirty ? { dirty } : {}) };
  };
}
