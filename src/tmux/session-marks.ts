// The marks the ownership side keeps on tmux sessions: the spawn nonce, the
// stamp and the task (@spawn_nonce, @claude_session_id, @fleet-task), read
// and written for spawn, stamp, the judge, sweep and takeover
// (docs/ownership.md). Each function is one tmux invocation; argv arrays only.
import { FIELD_SEP, sessionTarget } from './args';
import type { Tmux, TmuxReads } from './client';

/** What one session carries: the spawn nonce and the stamp (and, where it was read, the stamp's agent process). */
export interface NonceStamp {
  nonce: string;
  stamp: string;
  /** @fleet-stamp-agent, when read. */
  agent?: string;
}

/** The judge's read of driverPane: nonce and stamp together, or the tmux failure. */
export type PaneRead = NonceStamp | { tmuxError: string };

/** The format of the judge's one read (docs/ownership.md#decision-table). */
export const NONCE_STAMP_FORMAT = '#{@spawn_nonce} #{@claude_session_id}';

/** Splits `<nonce> <stamp>`; a nonce never holds a space, the stamp takes the rest of the line. */
export function parseNonceStamp(line: string): NonceStamp {
  const i = line.indexOf(' ');
  if (i === -1) return { nonce: line, stamp: '' };
  return { nonce: line.slice(0, i), stamp: line.slice(i + 1) };
}

/** The session that holds a pane, and that session's stamp, as read from the pane. */
export interface AskerRead {
  /** The pane answered (a missing pane expands to empty and still exits 0 on tmux 3.3a). */
  found: boolean;
  session: string;
  stamp: string;
}

const ASKER_FORMAT = ['#{pane_id}', '#{session_name}', '#{@claude_session_id}'].join(FIELD_SEP);

function askerCommand(pane: string): string[] {
  return ['display-message', '-p', '-t', pane, ASKER_FORMAT];
}

export function parseAskerLine(line: string, pane: string): AskerRead {
  const [id = '', session = '', ...rest] = line.split(FIELD_SEP);
  if (id !== pane || id === '') return { found: false, session: '', stamp: '' };
  return { found: true, session, stamp: rest.join(FIELD_SEP) };
}

function firstLine(text: string): string {
  const i = text.indexOf('\n');
  return i === -1 ? text : text.slice(0, i);
}

function tmuxErrorText(stderr: string, exitCode: number): string {
  return (stderr.trim().split('\n')[0] || `tmux exited ${exitCode}`).replace(/\s+/g, ' ');
}

/**
 * The judge's one call: `display-message -p -t '=<session>:' '#{@spawn_nonce} #{@claude_session_id}'`,
 * with the asker's pane read chained into the same invocation when askerPane is given.
 * When only the chained asker read fails, the pane read is still returned.
 */
export async function readPaneAndAsker(
  tmux: TmuxReads,
  session: string,
  askerPane?: string,
): Promise<{ pane: PaneRead; asker?: AskerRead }> {
  const commands = [['display-message', '-p', '-t', sessionTarget(session), NONCE_STAMP_FORMAT]];
  if (askerPane) commands.push(askerCommand(askerPane));
  const r = await tmux.tryChain(commands);
  const lines = r.stdout.split('\n');
  if (r.exitCode !== 0) {
    // The first command printed its line only if it ran; a display-message of a missing session exits 0.
    if (askerPane && lines.length >= 2) return { pane: parseNonceStamp(lines[0] ?? ''), asker: { found: false, session: '', stamp: '' } };
    return { pane: { tmuxError: tmuxErrorText(r.stderr, r.exitCode) } };
  }
  const pane = parseNonceStamp(lines[0] ?? '');
  if (!askerPane) return { pane };
  return { pane, asker: parseAskerLine(lines[1] ?? '', askerPane) };
}

/** The session holding a pane and its stamp (one call); found=false for a missing pane; null on a tmux failure. */
export async function readAsker(tmux: TmuxReads, pane: string): Promise<AskerRead | null> {
  const r = await tmux.tryRun(askerCommand(pane));
  if (r.exitCode !== 0) return null;
  return parseAskerLine(firstLine(r.stdout), pane);
}

/** Every session's name, nonce and stamp in one `list-sessions` call. */
export async function readSessionMarks(tmux: Tmux): Promise<Map<string, NonceStamp>> {
  const rows = await tmux.listSessions({ name: '#{session_name}', nonce: '#{@spawn_nonce}', stamp: '#{@claude_session_id}', agent: `#{${STAMP_AGENT_OPTION}}` });
  const out = new Map<string, NonceStamp>();
  for (const r of rows) out.set(r.name, { nonce: r.nonce, stamp: r.stamp, agent: r.agent });
  return out;
}

/** The stamp of a session, as set (empty: none, or no such session), or the tmux failure; one read. */
export async function readSessionStamp(tmux: TmuxReads, session: string): Promise<{ stamp: string } | { tmuxError: string }> {
  const r = await tmux.tryRun(['display-message', '-p', '-t', sessionTarget(session), '#{@claude_session_id}']);
  if (r.exitCode !== 0) return { tmuxError: tmuxErrorText(r.stderr, r.exitCode) };
  return { stamp: r.stdout.replace(/\n$/, '') };
}

/** The stamp of the session a tmux id names (`$3`, from $TMUX in a popup); null when no such session answers. */
export async function readSessionStampById(tmux: TmuxReads, id: string): Promise<string | null> {
  const r = await tmux.tryRun(['display-message', '-p', '-t', id, `#{session_id}${FIELD_SEP}#{@claude_session_id}`]);
  const [shown = '', ...stamp] = firstLine(r.stdout).split(FIELD_SEP);
  return r.exitCode === 0 && shown === id ? stamp.join(FIELD_SEP) : null;
}

/** Every stamp on the server: the agent process each session recorded with it ('' when none), and the sessions carrying it. */
export type StampsRead = Map<string, { agents: string[]; sessions: string[] }>;

/**
 * Every stamp on the server, the agent processes recorded with it (the
 * liveness fallback) and the sessions carrying it (which name an owner); null
 * when tmux cannot be read.
 */
export async function readStamps(tmux: TmuxReads): Promise<StampsRead | null> {
  return (await readAllMarks(tmux))?.stamps ?? null;
}

/** Every session's marks (its nonce and stamp, by name) and every stamp, as readStamps gives them. */
export interface MarksRead {
  sessions: Map<string, NonceStamp>;
  stamps: StampsRead;
}

/**
 * Every session's nonce and stamp, and every stamp with the agent processes
 * recorded with it and the sessions carrying it, in one `list-sessions` call:
 * what the judgements of one pass over many tasks share (restore). A session
 * missing from it reads as a display-message of it does: nonce and stamp
 * empty. Null when tmux cannot be read.
 */
export async function readAllMarks(tmux: TmuxReads): Promise<MarksRead | null> {
  const r = await tmux.tryRun(['list-sessions', '-F', ['#{@claude_session_id}', `#{${STAMP_AGENT_OPTION}}`, '#{@spawn_nonce}', '#{session_name}'].join(FIELD_SEP)]);
  if (r.exitCode !== 0) return null;
  const stamps: StampsRead = new Map();
  const sessions = new Map<string, NonceStamp>();
  for (const line of r.stdout.split('\n')) {
    if (line === '') continue;
    // The session name last: it may hold a tab.
    const [stamp = '', agent = '', nonce = '', ...name] = line.split(FIELD_SEP);
    sessions.set(name.join(FIELD_SEP), { nonce, stamp });
    if (stamp === '') continue;
    const seen = stamps.get(stamp) ?? { agents: [], sessions: [] };
    seen.agents.push(agent);
    seen.sessions.push(name.join(FIELD_SEP));
    stamps.set(stamp, seen);
  }
  return { sessions, stamps };
}

/** What stamp reads and writes in its one call. */
export interface StampRead {
  session: string;
  /** The pane's first process (#{pane_pid}). */
  panePid: number;
  nonce: string;
  task: string;
  /** The stamp the session carried before this one. */
  previous: string;
}

/** The stamped agent's process, set with the stamp (docs/ownership.md#the-stamps-process). */
export const STAMP_AGENT_OPTION = '@fleet-stamp-agent';

const STAMP_FORMAT = ['#{pane_id}', '#{session_name}', '#{pane_pid}', '#{@spawn_nonce}', '#{@fleet-task}', '#{@claude_session_id}'].join(FIELD_SEP);

/** Sets (or, for null, unsets) the stamped agent's process on the session holding `pane`. */
function stampAgentCommand(pane: string, agent: string | null): string[] {
  return agent === null ? ['set-option', '-u', '-t', pane, STAMP_AGENT_OPTION] : ['set-option', '-t', pane, STAMP_AGENT_OPTION, agent];
}

/**
 * Reads the session holding `pane` (name, pane process, nonce, task, previous
 * stamp) and sets its @claude_session_id and @fleet-stamp-agent (unset for
 * null: a previous agent's process must not linger), in one invocation. The
 * sets target the pane, which for a session option means the session holding
 * it; they fail when the pane is gone.
 */
export async function stampSession(tmux: Tmux, pane: string, sid: string, agent: string | null = null): Promise<StampRead> {
  const out = await tmux.chain([
    ['display-message', '-p', '-t', pane, STAMP_FORMAT],
    ['set-option', '-t', pane, '@claude_session_id', sid],
    stampAgentCommand(pane, agent),
  ]);
  const [id = '', session = '', panePid = '', nonce = '', task = '', ...rest] = firstLine(out).split(FIELD_SEP);
  if (id !== pane) throw new Error(`pane ${pane} not found`);
  return { session, panePid: Number(panePid) || 0, nonce, task, previous: rest.join(FIELD_SEP) };
}

/** Sets the stamped agent's process alone (when it is known only after the stamp's read: the pane's own process). */
export async function setStampAgent(tmux: Tmux, pane: string, agent: string): Promise<void> {
  await tmux.run(stampAgentCommand(pane, agent));
}

/** The spawn's settings: global options @fleet-session-prefix and @fleet-agent-cmd (empty when unset). Fails without a server. */
export async function readSpawnOptions(tmux: Tmux): Promise<{ prefix: string; agentCmd: string }> {
  const out = await tmux.run(['display-message', '-p', ['#{@fleet-session-prefix}', '#{@fleet-agent-cmd}'].join(FIELD_SEP)]);
  const [prefix = '', ...rest] = firstLine(out).split(FIELD_SEP);
  return { prefix, agentCmd: rest.join(FIELD_SEP) };
}

export interface SpawnSessionPlan {
  session: string;
  nonce: string;
  slug: string;
  cwd: string;
  /** Pane environment (respawn-pane -e). */
  env: Record<string, string>;
  /** The agent's argv, executed by tmux directly (no shell reads it as one string). */
  argv: string[];
}

export type SpawnSessionResult = { ok: true; sessionId: string } | { ok: false; sessionId: string | null; error: string };

/** A command that holds the pane until respawn-pane replaces it. */
const PLACEHOLDER = 'exec sleep 2147483647';

/**
 * ONE invocation: create the session with a placeholder, set @spawn_nonce and
 * @fleet-task on it, then respawn its pane with the agent. tmux stops the chain
 * at the first failure, so the agent never starts in a session without its nonce.
 * On failure, sessionId names the session if it was created (the caller kills it).
 */
export async function createSpawnSession(tmux: Tmux, plan: SpawnSessionPlan): Promise<SpawnSessionResult> {
  const target = sessionTarget(plan.session);
  const envArgs = Object.entries(plan.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const r = await tmux.tryChain([
    ['new-session', '-d', '-P', '-F', '#{session_id}', '-s', plan.session, '-c', plan.cwd, PLACEHOLDER],
    ['set-option', '-t', target, '@spawn_nonce', plan.nonce],
    ['set-option', '-t', target, '@fleet-task', plan.slug],
    ['respawn-pane', '-k', '-t', target, '-c', plan.cwd, ...envArgs, ...plan.argv],
  ]);
  const id = firstLine(r.stdout).trim();
  const sessionId = /^\$\d+$/.test(id) ? id : null;
  if (r.exitCode === 0 && sessionId) return { ok: true, sessionId };
  return { ok: false, sessionId, error: tmuxErrorText(r.stderr, r.exitCode) };
}

/** The current directory of a pane (`%N`, or a session's active pane as `=<name>:`; tmux reads it from the process), '' when unknown. */
export async function readPaneCurrentPath(tmux: Tmux, target: string): Promise<string> {
  const r = await tmux.tryRun(['display-message', '-p', '-t', target, '#{pane_current_path}']);
  return r.exitCode === 0 ? firstLine(r.stdout) : '';
}

/**
 * ONE invocation, for an existing session (restore: a shell tmux-resurrect
 * left, the task's own session whose agent is gone): read the session's id
 * through the pane (it fails when the pane is gone), drop the stamp of the
 * gone agent (a sweep would otherwise fill the task with it), set
 * @spawn_nonce and @fleet-task, then respawn that pane with the agent. The
 * chain stops at the first failure, so the agent never starts without its
 * nonce.
 */
export async function startInPane(tmux: Tmux, plan: SpawnSessionPlan & { pane: string }): Promise<SpawnSessionResult> {
  const target = sessionTarget(plan.session);
  const envArgs = Object.entries(plan.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const r = await tmux.tryChain([
    ['display-message', '-p', '-t', plan.pane, '#{session_id}'],
    ['set-option', '-u', '-t', target, '@claude_session_id'],
    ['set-option', '-u', '-t', target, STAMP_AGENT_OPTION],
    ['set-option', '-t', target, '@spawn_nonce', plan.nonce],
    ['set-option', '-t', target, '@fleet-task', plan.slug],
    ['respawn-pane', '-k', '-t', plan.pane, '-c', plan.cwd, ...envArgs, ...plan.argv],
  ]);
  const id = firstLine(r.stdout).trim();
  const sessionId = /^\$\d+$/.test(id) ? id : null;
  if (r.exitCode === 0 && sessionId) return { ok: true, sessionId };
  return { ok: false, sessionId, error: tmuxErrorText(r.stderr, r.exitCode) };
}

/**
 * Undoes startInPane: the session loses the nonce, and the pane gets a shell
 * again (what tmux-resurrect had left there). Not `respawn-pane` without a
 * command: tmux would run the pane's last command again, the agent's.
 */
export async function undoStartInPane(tmux: Tmux, session: string, pane: string): Promise<void> {
  await tmux.tryChain([
    ['set-option', '-u', '-t', sessionTarget(session), '@spawn_nonce'],
    ['respawn-pane', '-k', '-t', pane, '/bin/sh', '-c', 'exec "${SHELL:-/bin/sh}"'],
  ]);
}

/** What a restore reads of an existing session (docs/ownership.md#restore): its marks and its active pane. */
export interface SessionPaneRead {
  /** The session exists. */
  exists: boolean;
  task: string;
  nonce: string;
  stamp: string;
  /** Its active pane (where `=<name>:` lands): id, whether its process has exited, the foreground command, its directory. */
  pane: { id: string; dead: boolean; command: string; path: string } | null;
}

const SESSION_PANE_FORMAT = ['#{pane_id}', '#{pane_dead}', '#{@fleet-task}', '#{@spawn_nonce}', '#{@claude_session_id}', '#{pane_current_command}', '#{pane_current_path}'].join(FIELD_SEP);

/** One read of a session and its active pane; `exists: false` for a missing session; null when tmux cannot be read. */
export async function readSessionPane(tmux: TmuxReads, session: string): Promise<SessionPaneRead | null> {
  const r = await tmux.tryRun(['display-message', '-p', '-t', sessionTarget(session), SESSION_PANE_FORMAT]);
  if (r.exitCode !== 0) return null;
  const [id = '', dead = '', task = '', nonce = '', stamp = '', command = '', ...path] = firstLine(r.stdout).split(FIELD_SEP);
  // A missing session expands to nothing and exits 0 (docs/tmux.md#facts-measured-on-tmux-33a).
  if (!/^%\d+$/.test(id)) return { exists: false, task: '', nonce: '', stamp: '', pane: null };
  return { exists: true, task, nonce, stamp, pane: { id, dead: dead === '1', command, path: path.join(FIELD_SEP) } };
}

/** Kills a session by its id ($N), which no later session can share. */
export async function killSessionById(tmux: Tmux, sessionId: string): Promise<boolean> {
  const r = await tmux.tryRun(['kill-session', '-t', sessionId]);
  return r.exitCode === 0;
}
