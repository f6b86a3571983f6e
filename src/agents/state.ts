// What the status line shows of an agent that writes no registry row (Codex
// CLI, Gemini CLI), and what a Claude Code Driver's own hook adds to its row:
// from the agent's hook signals (signals.ts) and from the title the agent
// gives its pane, which tmux holds for free (docs/ownership.md#what-each-agent-tells).
// Pure: never a state nothing said.
import type { AgentState } from '../registry/hop';
import type { AgentKind } from './kind';
import type { AgentSignal, SignalState } from './signals';

/**
 * The titles the agents give their panes, as tmux 3.3a holds them (measured
 * with Codex CLI 0.171.0 and Gemini CLI 0.61.0; a tmux without a UTF-8 locale
 * shows each wide or non-ASCII character as `_`):
 *   Codex   `[ ! ] Action Required | <title> | <dir>` (blinking with `[ . ]`) waiting,
 *           `⠏ <title> | <dir>` (a braille spinner, ten frames a second) busy,
 *           `<title> | <dir>` or `<dir>` idle;
 *   Gemini  `✋ Action Required (<dir>)` waiting, `✦ Working… (<dir>)` busy, `◇ Ready (<dir>)` idle.
 * One table, as glob patterns (tmux's #{m:...}): the supervisor's classifier
 * and the tmux hook that wakes it on a change of class (titleClassFormat) read
 * the same patterns, first match wins.
 */
export const TITLE_CLASSES: readonly { state: SignalState; glob: string }[] = [
  { state: 'waiting', glob: '*Action Required*' },
  { state: 'busy', glob: '*Working*' },
  { state: 'idle', glob: '*Ready*' },
  // Codex's spinner as a tmux without a UTF-8 locale holds it.
  { state: 'busy', glob: '_ * | *' },
  { state: 'idle', glob: '[ -~]*' },
  // A first character that is not ASCII before ` | `: Codex's spinner. (Character ranges beyond ASCII are not
  // matched alike in every locale tmux may run in, so the spinner is told by what it is not.)
  { state: 'busy', glob: '* | *' },
];

/** A glob of TITLE_CLASSES as a regular expression (`*`, `?` and `[a-b]` only). */
function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      const end = glob.indexOf(']', i);
      re += glob.slice(i, end + 1);
      i = end;
    } else re += c.replace(/[\\^$.*+?()[\]{}|/-]/g, (m) => `\\${m}`);
  }
  return new RegExp(`^${re}$`, 'u');
}

const TITLE_RES = TITLE_CLASSES.map((c) => ({ state: c.state, re: globRegExp(c.glob) }));

/** The class of any title (the wake's change detector): the first pattern that matches, else `idle`. */
export function titleClass(title: string): SignalState {
  for (const c of TITLE_RES) if (c.re.test(title)) return c.state;
  return 'idle';
}

/** A title that is the agent's own (not a shell's, nor one the agent was told not to set): its state, else null. */
export function titleState(agent: AgentKind, title: string): SignalState | null {
  const t = title.trim();
  if (t === '') return null;
  if (agent === 'gemini') {
    // Each of Gemini's titles names its state in words.
    return /Action Required|Working|Ready/.test(t) ? titleClass(t) : null;
  }
  if (agent === 'codex') {
    // Codex's titles after a prompt name the thread and its directory (` | `); before one, the directory alone, which
    // cannot be told from a shell's title (Codex may be told not to set one): that says nothing.
    // The spinner before the first prompt's title is known (`⠦ work`, a tenth of a second): busy too.
    if (/^[\u2800-\u28ff] /u.test(t)) return 'busy';
    const state = titleClass(t);
    return state !== 'idle' || t.includes(' | ') ? state : null;
  }
  return null;
}

/**
 * The tmux format of a title's class, for the hook that wakes the supervisor
 * only when a pane's title changes class (a spinner's frames stay one class):
 * nested #{?#{m:<glob>,#{pane_title}},<state>,...}. The globs hold no `,`,
 * `}` or `#`.
 */
export function titleClassFormat(): string {
  let out = 'idle';
  for (const c of [...TITLE_CLASSES].reverse()) out = `#{?#{m:${c.glob},#{pane_title}},${c.state},${out}}`;
  return out;
}

/** How far a hook's wait may come before the row's own (the hook runs as the agent asks, the row is written after). */
export const SIGNAL_LEAD_MS = 5000;

/**
 * The state of an agent that writes no registry row, from its last hook
 * signal and its pane's title. The hooks are exact and come first (a title
 * lags a second or two behind a turn's start and end), except where the two
 * disagree on whether it waits: then the title, which shows the approval
 * prompt itself (and so ends a wait no hook reports, as Gemini's denial).
 * Without a signal, the title's state; the signal's sentence while it and the
 * state say waiting; null when neither says anything. `signal` must be this
 * session's (its pane in the session stamped with its id).
 */
export function otherAgentState(agent: AgentKind, sid: string, signal: AgentSignal | null, title: string | null): AgentState | null {
  const fromTitle = title === null ? null : titleState(agent, title);
  const disagree = signal !== null && fromTitle !== null && (signal.state === 'waiting') !== (fromTitle === 'waiting');
  const status = disagree ? fromTitle : (signal?.state ?? fromTitle);
  if (status === null) return null;
  const needs = status === 'waiting' && signal?.state === 'waiting' ? signal.needs : null;
  const state: AgentState = {
    sessionId: sid,
    status,
    waitingFor: status === 'waiting' && !needs ? 'approval' : null,
    needs,
    tempo: null,
    alive: true,
    job: null,
  };
  if (signal && signal.state === status) state.since = signal.at;
  return state;
}

/**
 * A Claude Code row's state with what its PermissionRequest hook said: while
 * the row waits (`waiting: permission prompt` says no more), the hook's
 * sentence (`approve Bash: ls -la /`), when it came with this wait, not an
 * earlier one. `rowChangedAt`: when the row's status last changed (epoch ms).
 */
export function withHookNeeds(state: AgentState, signal: AgentSignal | null | undefined, rowChangedAt: number): AgentState {
  if (!signal || signal.state !== 'waiting' || !signal.needs || state.status !== 'waiting' || state.needs) return state;
  if (signal.sessionId !== state.sessionId || !(signal.at >= rowChangedAt - SIGNAL_LEAD_MS)) return state;
  return { ...state, needs: signal.needs };
}
