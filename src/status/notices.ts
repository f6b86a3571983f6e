// The events of a wake (docs/notify.md#events): what the fleet's agents look
// like now against the last wake, each event once while its state holds.
// Pure; the notifier (src/notify/) says them where the person is.
import type { AgentKind } from '../agents/kind';
import { oneLineText } from '../agents/signals';
import { isErrorWait, type Notice } from '../notify/notice';
import type { Waiter } from './agents';
import type { FleetView } from '../fleet/view';
import { isArchived } from '../tasks/schema';

/** One agent as a wake sees it: enough to tell a change. */
export interface AgentLook {
  who: string;
  status: string | null;
  session: string | null;
  task: string | null;
  agent: AgentKind | null;
  /** A task's Driver: live, gone, or not known. */
  driver?: 'live' | 'gone' | null;
}

/** One session's look, or null when it shows no live agent. */
function sessionLook(s: FleetView['sessions'][number]): AgentLook | null {
  if (!s.state || !s.state.alive) return null;
  return { who: s.slug ?? s.session, status: s.state.status, session: s.session, task: s.slug, agent: s.agent };
}

/** One task's Driver's look (its liveness), or null for a task with no owner or no record. */
function taskLook(t: FleetView['tasks'][number], agentGone: (session: string) => boolean): AgentLook | null {
  // An archived task's Driver was asked to exit by `done`: no news (docs/tasks.md#archived-tasks).
  if (t.owner === '' || t.task === null || isArchived(t.task)) return null;
  const driver = t.decision.verdict === 0 ? (t.session !== null && agentGone(t.session) ? 'gone' : 'live') : t.decision.liveness === 'live' || t.decision.liveness === 'gone' ? t.decision.liveness : null;
  return { who: t.slug, status: null, session: t.session, task: t.slug, agent: t.agent, driver };
}

/**
 * The fleet's agents as this wake sees them, by key: every stamped or
 * task-bound session with a state (`s:<session>`), and every task's Driver
 * (`t:<slug>`, its liveness). Jobs come in through the waiters.
 */
export function lookAtFleet(view: FleetView): Map<string, AgentLook> {
  const out = new Map<string, AgentLook>();
  const sessions = new Map(view.sessions.map((s) => [s.session, s]));
  for (const s of view.sessions) {
    const look = sessionLook(s);
    if (look) out.set(`s:${s.session}`, look);
  }
  for (const t of view.tasks) {
    const look = taskLook(t, (name) => !!sessions.get(name)?.agentGone);
    if (look) out.set(`t:${t.slug}`, look);
  }
  return out;
}

/**
 * The looks after a wake that computed only some sessions and tasks again
 * (docs/status.md#incremental-wakes): `looks` (the last wake's) changed in
 * place for those, and for the sessions gone; the keys changed, each with its
 * look before (undefined: none), for noticesOf. `agentGone`: whether a
 * session's stamped agent is gone, as its view says.
 */
export function updateLooks(
  looks: Map<string, AgentLook>,
  changed: { sessions: Iterable<FleetView['sessions'][number]>; gone: Iterable<string>; tasks: Iterable<FleetView['tasks'][number]> },
  agentGone: (session: string) => boolean,
): Map<string, AgentLook | undefined> {
  const before = new Map<string, AgentLook | undefined>();
  const put = (key: string, look: AgentLook | null) => {
    if (!before.has(key)) before.set(key, looks.get(key));
    if (look) looks.set(key, look);
    else looks.delete(key);
  };
  for (const name of changed.gone) put(`s:${name}`, null);
  for (const s of changed.sessions) put(`s:${s.session}`, sessionLook(s));
  for (const t of changed.tasks) put(`t:${t.slug}`, taskLook(t, agentGone));
  return before;
}

/** A turn ended: it was busy (or waiting, the approval answered within one wake) and is idle now. */
function finished(before: AgentLook | undefined, now: AgentLook): boolean {
  return !!before && (before.status === 'busy' || before.status === 'waiting') && now.status === 'idle';
}

/**
 * The events between the last wake's look and this one's: new waits (a
 * waiter key not seen before; an error when its sentence is Claude Code's
 * failed request), turns finished, Drivers stopped. `lastWaits` null: the
 * first wake, which tells nothing (what already was is no news).
 */
export function noticesOf(
  before: ReadonlyMap<string, AgentLook | undefined> | null,
  now: ReadonlyMap<string, AgentLook>,
  lastWaits: ReadonlySet<string> | null,
  waiters: readonly Waiter[],
  paneOf: (session: string) => string | null,
  /** The only keys that may differ between `before` and `now` (updateLooks'); absent: every key of `now`. */
  keys?: Iterable<string>,
): Notice[] {
  if (before === null || lastWaits === null) return [];
  const out: Notice[] = [];
  for (const w of waiters) {
    if (lastWaits.has(w.key)) continue;
    const session = w.target.kind === 'session' ? w.target.session : w.target.parkedBy;
    const look = session ? now.get(`s:${session}`) : undefined;
    out.push({
      kind: isErrorWait(w.what) ? 'error' : 'wait',
      who: w.who,
      what: oneLineText(w.what),
      session,
      pane: w.target.kind === 'session' && session ? paneOf(session) : null,
      task: look?.task ?? (w.target.kind === 'session' ? w.who : null),
      agent: look?.agent ?? null,
      key: w.key,
      job: w.target.kind === 'job' ? w.target.jobId : null,
    });
  }
  for (const key of keys ?? now.keys()) {
    const look = now.get(key);
    if (!look) continue;
    const was = before.get(key);
    if (key.startsWith('s:') && finished(was, look)) {
      out.push({ kind: 'done', who: look.who, what: 'finished its turn', session: look.session, pane: look.session ? paneOf(look.session) : null, task: look.task, agent: look.agent });
    }
    if (key.startsWith('t:') && was?.driver === 'live' && look.driver === 'gone') {
      out.push({ kind: 'error', who: look.who, what: 'its Driver stopped', session: look.session, pane: null, task: look.task, agent: look.agent });
    }
  }
  return out;
}
