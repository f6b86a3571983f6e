// Whether an agent waits for the user to approve or answer something
// (docs/ownership.md#send): a prompt typed then would answer it. The one place
// that says so, for `send` and the dashboard's send key.
//
// Claude Code says it in its registry row (`status: waiting`, with
// `waitingFor`) and, for a background job, in its state file (`tempo:
// blocked` with a `needs` sentence). Codex CLI and Gemini CLI write no state
// here: their pane's title says it (measured with Codex 0.171.0,
// `[ ! ] Action Required | <title> | <dir>`, blinking with `[ . ]`, and Gemini
// 0.61.0, `✋  Action Required (<dir>)`; tmux may draw a wide character of a
// title as `_`).
import type { AgentKind } from './kind';

/** What is known of the agent: its kind, Claude Code's state (row and job state file), its pane's title. */
export interface WaitFacts {
  agent: AgentKind | null;
  state?: { status: string | null; waitingFor: string | null; needs?: string | null; tempo?: string | null; alive: boolean } | null;
  paneTitle?: string | null;
}

/** A job that waits for its first prompt asks for just what `send` gives it. */
const ASKS_FOR_A_PROMPT = /^send a prompt\b/i;

const TITLE_WAITS: Record<Exclude<AgentKind, 'claude'>, RegExp> = {
  codex: /^\[ [!._] \] Action Required\b/,
  gemini: /Action Required \(.*\)\s*$/,
};

/** What the agent waits for (a short phrase), or null when nothing says it waits for an answer. */
export function waitsForAnswer(f: WaitFacts): string | null {
  const s = f.state;
  if (s && s.alive) {
    if (s.status === 'waiting') return s.waitingFor ? `it waits (${s.waitingFor})` : 'it waits for an answer';
    if (s.tempo === 'blocked' && s.needs && !ASKS_FOR_A_PROMPT.test(s.needs)) return `it waits: ${s.needs}`;
  }
  if (f.agent && f.agent !== 'claude' && f.paneTitle && TITLE_WAITS[f.agent].test(f.paneTitle)) return 'it waits for an approval (its title says Action Required)';
  return null;
}
