// The caller's own tmux session, from $TMUX_PANE.
import type { Tmux } from './client';
import { sessionTarget } from './args';

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

/** A pane of a session, as `send` and `done` need it. */
export interface PaneInfo {
  /** `%N` */
  id: string;
  /** The pane's first process. */
  pid: number;
  title: string;
  /** In copy mode or another mode: keys and pastes would go to the mode, not the program. */
  inMode: boolean;
  dead: boolean;
}

const PANE_INFO_FORMAT = ['P', '#{pane_id}', '#{pane_pid}', '#{pane_in_mode}', '#{pane_dead}', '#{pane_title}'].join('\t');

/**
 * Every pane of a session and the agent process its stamp recorded
 * (@fleet-stamp-agent), in one call; null when there is no such session.
 */
export async function readSessionPanes(tmux: Tmux, session: string): Promise<{ panes: PaneInfo[]; stampAgent: string } | null> {
  const r = await tmux.tryChain([
    ['list-panes', '-s', '-t', sessionTarget(session), '-F', PANE_INFO_FORMAT],
    ['display-message', '-p', '-t', sessionTarget(session), 'A\t#{@fleet-stamp-agent}'],
  ]);
  if (r.exitCode !== 0) return null;
  const panes: PaneInfo[] = [];
  let stampAgent = '';
  for (const line of r.stdout.split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'P' && f.length >= 6) {
      // The title is last: a tab in it stays in it.
      panes.push({ id: f[1] as string, pid: Number(f[2]), inMode: f[3] === '1', dead: f[4] === '1', title: f.slice(5).join('\t') });
    } else if (f[0] === 'A') stampAgent = f.slice(1).join('\t');
  }
  return { panes, stampAgent };
}

/** The visible text of a pane (no attributes); '' when it cannot be read. */
export async function capturePane(tmux: Tmux, pane: string): Promise<string> {
  const r = await tmux.tryRun(['capture-pane', '-p', '-t', pane]);
  return r.exitCode === 0 ? r.stdout : '';
}

/** The title of a pane; null when it cannot be read. */
export async function paneTitle(tmux: Tmux, pane: string): Promise<string | null> {
  const r = await tmux.tryRun(['display-message', '-p', '-t', pane, '#{pane_title}']);
  return r.exitCode === 0 ? r.stdout.replace(/\n$/, '') : null;
}

/** Keys by tmux's names (`Enter`, `C-c`), one send-keys call. */
export async function sendKeyNames(tmux: Tmux, pane: string, keys: readonly string[]): Promise<void> {
  await tmux.run(['send-keys', '-t', pane, ...keys]);
}

/**
 * Pastes a file's text into a pane as one paste: loaded into a buffer of its
 * own, pasted with bracketed-paste marks when the program asked for them
 * (`paste-buffer -p`; line feeds become carriage returns inside the marks, as
 * a terminal pastes them), and the buffer deleted, in one call. The text never
 * passes through a tmux command line.
 */
export async function pasteFile(tmux: Tmux, pane: string, file: string, buffer: string): Promise<void> {
  try {
    await tmux.chain([
      ['load-buffer', '-b', buffer, file],
      ['paste-buffer', '-p', '-d', '-b', buffer, '-t', pane],
    ]);
  } catch (err) {
    // A paste that failed leaves no buffer behind (its text stays nowhere).
    await tmux.tryRun(['delete-buffer', '-b', buffer]);
    throw err;
  }
}
