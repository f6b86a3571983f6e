// The events of a wake (docs/notify.md#events): what the fleet's agents look
// like now against the last wake, each event once while its state holds.
// Pure; the notifier (src/notify/) says them where the person is.
import type { AgentKind } from '../agents/kind';
import { oneLineText } from '../agents/signals';
import { isErrorWait, type Notice } from '../notify/notice';
import type { Waiter } from './agents';
import type { FleetView } from './view';
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

/**
 * The fleet's agents as this wake sees them, by key: every stamped or
 * task-bound session with a state (`s:<session>`), and every task's Driver
 * (`t:<slug>`, its liveness). Jobs come in through the waiters.
 */
export function lookAtFleet(view: FleetView): Map<string, AgentLook> {
  const out = new Map<string, AgentLook>();
  const sessions = new Map(view.sessions.map((s) => [s.session, s]));
  for (const s of view.sessions) {
    if (!s.state || !s.state.alive) continue;
    out.set(`s:${s.session}`, { who: s.slug ?? s.session, status: s.state.status, session: s.session, task: s.slug, agent: s.agent });
  }
  for (const t of view.tasks) {
    // An archived task's Driver was asked to exit by `done`: no news (docs/tasks.md#archived-tasks).
    if (t.owner === '' || t.task === null || isArchived(t.task)) continue;
    const own = t.session ? sessions.get(t.session) : undefined;
    const driver = t.decision.verdict === 0 ? (own?.agentGone ? 'gone' : 'live') : t.decision.liveness === 'live' || t.decision.liveness === 'gone' ? t.decision.liveness : null;
    out.set(`t:${t.slug}`, { who: t.slug, status: null, session: t.session, task: t.slug, agent: t.agent, driver });
  }
  return out;
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
  before: ReadonlyMap<string, AgentLook> | null,
  now: ReadonlyMap<string, AgentLook>,
  lastWaits: ReadonlySet<string> | null,
  waiters: readonly Waiter[],
  paneOf: (session: string) => string | null,
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
  for (const [key, look] of now) {
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
