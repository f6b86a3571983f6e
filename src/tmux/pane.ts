// The caller's own tmux session, from $TMUX_PANE.
import type { Tmux } from './client';

export interface PaneSession {
  session: string;
  /** @claude_session_id of that session; '' when unstamped. */
  stamp: string;
}

/** The session holding a pane (e.g. $TMUX_PANE) and its stamp, in one call; null when the pane is not found. */
export async function paneSession(tmux: Tmux, pane: string): Promise<PaneSession | null> {
  const r = await tmux.tryRun(['display-message', '-p', '-t', pane, '#{session_name}\t#{@claude_session_id}']);
  if (r.exitCode !== 0) return null;
  const line = r.stdout.replace(/\n$/, '');
  const i = line.indexOf('\t');
  if (i < 0 || line.slice(0, i) === '') return null;
  return { session: line.slice(0, i), stamp: line.slice(i + 1) };
}
