// What the supervisor writes (docs/status.md#the-supervisor): the segment
// values each session should show, diffed against what tmux holds, so that
// only what changed is written; and the toasts, for the clients of a session.
import type { OptionChange, Toast } from '../tmux/apply';
import type { TmuxSnapshot } from '../tmux/snapshot';
import type { Notice } from '../notify/notice';
import { oneToastPerClient, toastsFor } from '../tmux/toast';

/**
 * The segments, the short forms a narrow client shows (docs/status.md#narrow-clients),
 * and the session's unseen mark (docs/notify.md#unseen: kept in tmux, so a new
 * supervisor finds it).
 */
export const SEGMENT_OPTIONS = ['@fleet-owner', '@fleet-hop', '@fleet-agent', '@fleet-hop-short', '@fleet-agent-short', '@fleet-unseen'] as const;
export type SegmentOption = (typeof SEGMENT_OPTIONS)[number];

/**
 * The fleet's attention (docs/status.md#attention): the same in every session,
 * so one global option that every session's status line reads (a session sets
 * none of its own), written once whatever the number of sessions.
 */
export const ATTENTION_OPTION = '@fleet-attention';

/** The options a job's window carries over its session's (docs/status.md#background-jobs). */
export const WINDOW_OPTIONS = ['@fleet-owner', '@fleet-hop', '@fleet-agent', '@fleet-hop-short', '@fleet-agent-short'] as const;
export type WindowOption = (typeof WINDOW_OPTIONS)[number];
/** Window id (@N) -> its session and the values it shows. */
export type WindowValues = Map<string, { session: string; values: Record<WindowOption, string> }>;

export interface Rendered {
  /** Desired segment values per session name ('' = nothing to show). */
  values: Map<string, Record<SegmentOption, string>>;
  /** The fleet's attention segment (ATTENTION_OPTION); absent: left as it is. */
  attention?: string;
  /** Desired values of the windows opened for background jobs. */
  windows?: WindowValues;
  /** Messages for the clients attached to a session. */
  toasts: { session: string; text: string }[];
  /** What this render tells the person (docs/notify.md#events), and the keys of the waits that hold now. */
  notices?: readonly Notice[];
  waits?: ReadonlySet<string>;
  /** The windows whose agent finished unseen, and their mark (@fleet-window: #{fleet_window}, docs/notify.md#unseen). */
  unseenWindows?: ReadonlyMap<string, { session: string; value: string }>;
  /** The sessions whose segments this render computed again (absent: all of them). */
  recomputed?: number;
  /** The registry row files this render opened. */
  rowsRead?: number;
  /** The only sessions whose values may differ from the last render's (absent: any of them). */
  dirty?: ReadonlySet<string>;
}

/** What changed since the last render, as far as the supervisor knows. */
export interface RenderHint {
  /** Only the registry changed: the task files need not be looked at again. */
  registryOnly: boolean;
  /** Registry file names the watch reported; null: look at every file. */
  registryChanged: ReadonlySet<string> | null;
  /** Jobs whose state files the watch or the poll saw change. */
  jobsChanged?: ReadonlySet<string>;
  /** Tasks whose files the watches saw change; null or absent: look at every task file. */
  tasksChanged?: ReadonlySet<string> | null;
  /** Session ids whose signal files (the agents' hooks) changed; null or absent: read every one. */
  signalsChanged?: ReadonlySet<string> | null;
  /** The pane proof is due to look at /proc again (an agent still to be proven, a stamp settling). */
  recheck?: boolean;
  /** Watched processes the poll found gone: the rows of those pids are judged again (docs/status.md#incremental-wakes). */
  died?: ReadonlySet<number>;
}

/**
 * Computes what every session should show from one tmux snapshot (reads files,
 * starts no process). `held`: what tmux holds of the segments since that
 * snapshot was read (the unseen marks written since are read back from it).
 */
export type Render = (snapshot: TmuxSnapshot, hint: RenderHint, held?: HeldSegments) => Promise<Rendered>;

type SegmentField = 'owner' | 'hop' | 'agent' | 'hopShort' | 'agentShort' | 'unseen';
/** Where the snapshot keeps each option's current value (src/tmux/snapshot.ts). */
const SNAPSHOT_FIELD: Record<SegmentOption, SegmentField> = {
  '@fleet-owner': 'owner',
  '@fleet-hop': 'hop',
  '@fleet-agent': 'agent',
  '@fleet-hop-short': 'hopShort',
  '@fleet-agent-short': 'agentShort',
  '@fleet-unseen': 'unseen',
};

/**
 * Diff of desired against current values (what tmux holds): only what changed is written.
 * `only`: the sessions whose values may have changed (the others are not compared).
 */
export function diffSegments(held: HeldSegments, values: Rendered['values'], only?: ReadonlySet<string>): OptionChange[] {
  const changes: OptionChange[] = [];
  for (const s of held.snapshot.sessions) {
    if (only && !only.has(s.name)) continue;
    const want = values.get(s.name);
    for (const option of SEGMENT_OPTIONS) {
      const value = want?.[option] ?? '';
      if (held.value(s, option) !== value) changes.push({ session: s.name, option, value });
    }
  }
  return changes;
}

/** The window option of the unseen mark. */
export const UNSEEN_WINDOW_OPTION = '@fleet-window';

/** The unseen marks to write: new or changed ones set, those gone unset (where the window still exists). */
export function diffUnseenWindows(
  last: ReadonlyMap<string, { session: string; value: string }>,
  want: ReadonlyMap<string, { session: string; value: string }>,
  existing: ReadonlySet<string>,
): OptionChange[] {
  const changes: OptionChange[] = [];
  for (const [window, w] of want) if (last.get(window)?.value !== w.value) changes.push({ session: w.session, window, option: UNSEEN_WINDOW_OPTION, value: w.value });
  for (const [window, w] of last) if (!want.has(window) && existing.has(window)) changes.push({ session: w.session, window, option: UNSEEN_WINDOW_OPTION, value: '' });
  return changes;
}

/**
 * Window options to write: what changed against what this supervisor wrote
 * last (tmux's own answer for a window's option falls back to the session's),
 * and unsets for windows that no longer show a job but still exist.
 */
export function diffWindows(last: WindowValues, want: WindowValues, existing: ReadonlySet<string>): OptionChange[] {
  const changes: OptionChange[] = [];
  for (const [window, w] of want) {
    const before = last.get(window)?.values;
    for (const option of WINDOW_OPTIONS) {
      if (before?.[option] !== w.values[option]) changes.push({ session: w.session, window, option, value: w.values[option] });
    }
  }
  for (const [window, w] of last) {
    if (want.has(window) || !existing.has(window)) continue;
    for (const option of WINDOW_OPTIONS) changes.push({ session: w.session, window, option, value: '' });
  }
  return changes;
}

/**
 * What tmux holds of the segment options since a snapshot was read: the
 * snapshot's values, overlaid with this supervisor's writes since
 * (docs/status.md#incremental-wakes). The snapshot itself is never changed: the
 * caches kept beside it stay true.
 */
export class HeldSegments {
  private readonly written = new Map<string, Partial<Record<SegmentOption, string>>>();

  constructor(readonly snapshot: TmuxSnapshot) {}

  /** What this supervisor wrote to a session's option since the read (undefined: the snapshot's value holds). */
  wrote(session: string, option: SegmentOption): string | undefined {
    return this.written.get(session)?.[option];
  }

  /** What tmux holds of a session's option. */
  value(s: TmuxSnapshot['sessions'][number], option: SegmentOption): string {
    return this.written.get(s.name)?.[option] ?? s[SNAPSHOT_FIELD[option]];
  }

  /** Our write landed: tmux holds these values now. */
  record(changes: readonly OptionChange[]): void {
    const field: Record<string, SegmentField> = SNAPSHOT_FIELD;
    for (const c of changes) {
      if (c.window !== undefined || c.global || field[c.option] === undefined) continue;
      const values = this.written.get(c.session) ?? {};
      values[c.option as SegmentOption] = c.value;
      this.written.set(c.session, values);
    }
  }
}

/**
 * The writes of the fleet's attention: the global value when it differs from
 * the one written last (null: none yet, or a write that may not have landed);
 * with `clearOwn` (a run's first write), the value each session may hold of
 * its own, unset so that it cannot hide the global one (an older build wrote
 * one in every session). A session's value as the snapshot reads it is its
 * own, else the global one, so every session that shows one is unset, once.
 */
export function attentionChanges(snapshot: TmuxSnapshot, want: string | undefined, last: string | null, clearOwn: boolean): OptionChange[] {
  const changes: OptionChange[] = [];
  if (clearOwn) for (const s of snapshot.sessions) if (s.attention !== '') changes.push({ session: s.name, option: ATTENTION_OPTION, value: '' });
  if (want !== undefined && want !== last) changes.push({ session: '', global: true, option: ATTENTION_OPTION, value: want });
  return changes;
}

/**
 * Each toast for the clients of its session, shown for @fleet-message-time; a
 * client's toasts joined into one. The clients are looked up by session: a
 * wake's toasts name every session (a notice goes to every client), most of
 * which no client shows.
 */
export function toastsForClients(snapshot: TmuxSnapshot, toasts: Rendered['toasts']): Toast[] {
  if (toasts.length === 0 || snapshot.clients.length === 0) return [];
  const onScreen = new Set(snapshot.clients.map((c) => c.session));
  return oneToastPerClient(toasts.flatMap((t) => (onScreen.has(t.session) ? toastsFor(snapshot.clients, t.session, t.text) : [])));
}
