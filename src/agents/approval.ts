// Whether an agent waits for the user to approve or answer something
// (docs/ownership.md#send): a prompt typed then would answer it. The one place
// that says so, for `send` and the dashboard's send key.
//
// From the agent's state as the fleet view has it (src/agents/state.ts):
// Claude Code's registry row (`status: waiting`, with `waitingFor`) and, for a
// background job, its state file (`tempo: blocked` with a `needs` sentence);
// Codex CLI and Gemini CLI from their hooks and pane title. The title is read
// again as the text is about to be typed (titleState: `[ ! ] Action Required |
// …` for Codex 0.171.0, `✋  Action Required (<dir>)` for Gemini 0.61.0).
import type { AgentKind } from './kind';
import { titleState } from './state';

/** What is known of the agent: its kind, its state (the fleet view's), its pane's title now. */
export interface WaitFacts {
  agent: AgentKind | null;
  state?: { status: string | null; waitingFor: string | null; needs?: string | null; tempo?: string | null; alive: boolean } | null;
  paneTitle?: string | null;
}

/** A job that waits for its first prompt asks for just what `send` gives it. */
const ASKS_FOR_A_PROMPT = /^send a prompt\b/i;

/** What the agent waits for (a short phrase), or null when nothing says it waits for an answer. */
export function waitsForAnswer(f: WaitFacts): string | null {
  const s = f.state;
  if (s && s.alive) {
    if (s.status === 'waiting') return s.needs ? `it waits: ${s.needs}` : s.waitingFor ? `it waits (${s.waitingFor})` : 'it waits for an answer';
    if (s.tempo === 'blocked' && s.needs && !ASKS_FOR_A_PROMPT.test(s.needs)) return `it waits: ${s.needs}`;
  }
  if (f.agent && f.agent !== 'claude' && f.paneTitle && titleState(f.agent, f.paneTitle) === 'waiting') return 'it waits for an approval (its title says Action Required)';
  return null;
}
