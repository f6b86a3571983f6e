// Moving a client to a session (the dashboard's Enter, attention --jump), by
// the exact =name: target.
import { sessionTarget } from './args';
import type { Tmux } from './client';

/** Moves a client (default: the one tmux picks for the caller) to a session. */
export async function switchClient(tmux: Tmux, session: string, client?: string): Promise<void> {
  const args = ['switch-client'];
  if (client) args.push('-c', client);
  args.push('-t', sessionTarget(session));
  await tmux.run(args);
}
