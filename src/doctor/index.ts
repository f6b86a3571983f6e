// doctor (docs/hop.md#doctor): one check per line, each with its fix. Reads only.
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { basename } from 'node:path';
import { checkFleetHome, registryDir, type Context } from '../context';
import { TmuxError } from '../errors';
import { printable } from '../text';
import { findStampHooks, hookHelperPath, readSettings, settingsFile } from '../hooks/settings';
import { lastHandover } from '../ownership/judge';
import { judgeLoaded, loadForJudge } from '../ownership/owner';
import { follow, guessByCwd, parkedJob, shortSid } from '../registry/follow';
import { renderAgent } from '../registry/hop';
import { liveRows, type LiveRow } from '../registry/liveness';
import { readRegistry } from '../registry/reader';
import { runningSupervisor } from '../nudge';
import { sessionTarget } from '../tmux/args';
import { statusFitChecks } from '../status/fit';
import { Tmux } from '../tmux/client';
import { paneSession } from '../tmux/pane';

/** ok: ✔, fail: ✖, skip: – (not applicable; never fails the run). */
export type CheckState = 'ok' | 'fail' | 'skip';

export interface Check {
  id: string;
  state: CheckState;
  text: string;
  /** What to do about a failure. */
  fix?: string;
}

export interface DoctorReport {
  ok: boolean;
  server: string;
  session: string | null;
  checks: Check[];
}

export const MIN_TMUX: [number, number] = [3, 2];

/** "tmux 3.3a" -> [3, 3]; "tmux next-3.4" -> [3, 4]; null when no version can be found. */
export function parseTmuxVersion(text: string): [number, number] | null {
  const m = /(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

export function versionAtLeast(v: [number, number], min: [number, number]): boolean {
  return v[0] > min[0] || (v[0] === min[0] && v[1] >= min[1]);
}

/** A path shown without its directories: `…/name.sock`. Never the full messaging socket path. */
export function elidePath(p: string): string {
  return `…/${basename(p)}`;
}

const MARK: Record<CheckState, string> = { ok: '✔', fail: '✖', skip: '–' };

export function renderCheck(c: Check): string {
  // Texts carry values from files and tmux: no control character reaches the terminal.
  return `${MARK[c.state]} ${printable(c.text)}${c.state === 'fail' && c.fix ? ` — fix: ${printable(c.fix)}` : ''}`;
}

/** Connects to a unix socket and hangs up: reachable when someone accepts. */
export function socketReachable(path: string, timeoutMs = 1000): Promise<{ ok: boolean; error?: string }> {
  return new Promise((resolve) => {
    const sock = createConnection({ path });
    const done = (r: { ok: boolean; error?: string }) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ ok: false, error: `no answer in ${timeoutMs} ms` }), timeoutMs);
    sock.once('connect', () => done({ ok: true }));
    sock.once('error', (err: NodeJS.ErrnoException) => done({ ok: false, error: err.code ?? err.message }));
  });
}

const FIELDS = '#{pid}\t#{socket_path}\t#{version}\t#{@fleet-version}';

export async function runDoctor(ctx: Context, opts: { session?: string } = {}): Promise<DoctorReport> {
  const tmux = new Tmux(ctx.socket);
  const checks: Check[] = [];
  const add = (c: Check) => checks.push(c);

  // The fleet home is the user's alone (docs/tasks.md#file-modes); every other command refuses it otherwise.
  const home = checkFleetHome(ctx.home);
  if (home) add({ id: 'fleet-home', state: 'fail', text: `fleet home: ${home.path} ${home.problem}`, fix: home.fix });
  else add({ id: 'fleet-home', state: 'ok', text: `fleet home: ${ctx.home}` });

  // tmux version (the client binary; the server's own version is checked below).
  const v = await tmux.tryRun(['-V']);
  const clientVersion = v.exitCode === 0 ? parseTmuxVersion(v.stdout) : null;
  if (v.exitCode !== 0) add({ id: 'tmux-version', state: 'fail', text: `tmux: cannot be run (${v.stderr.trim() || `exit ${v.exitCode}`})`, fix: 'install tmux 3.2 or later' });
  else if (!clientVersion || !versionAtLeast(clientVersion, MIN_TMUX))
    add({ id: 'tmux-version', state: 'fail', text: `tmux version: ${v.stdout.trim()} (3.2 or later needed)`, fix: 'upgrade tmux to 3.2 or later' });
  else add({ id: 'tmux-version', state: 'ok', text: `tmux version: ${v.stdout.trim()}` });

  // Server, plugin (options and keys): one call.
  const r = await tmux
    .chain([['display-message', '-p', FIELDS], ['show-options', '-s', 'command-alias'], ['list-keys']])
    .then((stdout) => ({ exitCode: 0, stdout, stderr: '' }))
    .catch((err: unknown) => ({ exitCode: 1, stdout: '', stderr: err instanceof TmuxError ? err.stderr : String(err) }));
  const lines = r.stdout.split('\n');
  const [pid = '', socketPath = '', serverVersion = '', pluginVersion = ''] = (lines[0] ?? '').split('\t');
  const reachable = r.exitCode === 0 && socketPath !== '';
  if (!reachable) {
    add({
      id: 'server',
      state: 'fail',
      text: `server: ${tmux.describeServer()} not reachable (${r.stderr.trim().split('\n')[0] || 'no answer'})`,
      fix: 'start tmux, or aim at your server with --socket/--socket-path (TMUX_FLEET_SOCKET/TMUX_FLEET_SOCKET_PATH)',
    });
  } else {
    const sv = parseTmuxVersion(serverVersion);
    if (sv && !versionAtLeast(sv, MIN_TMUX))
      add({ id: 'server', state: 'fail', text: `server: reachable, pid ${pid}, but runs tmux ${serverVersion}`, fix: 'restart the tmux server with tmux 3.2 or later' });
    else add({ id: 'server', state: 'ok', text: `server: reachable (${tmux.describeServer()}, pid ${pid}, tmux ${serverVersion})` });

    const alias = lines.some((l) => /^command-alias\[\d+\] "?fleet=/.test(l));
    const keys = lines.filter((l) => l.startsWith('bind-key') && /tmux-fleet|fleet-popup\.sh|fleet-owner\.sh/.test(l)).length;
    const wired = [keys > 0 ? `${keys} key${keys === 1 ? '' : 's'}` : '', alias ? 'command-alias fleet' : ''].filter(Boolean).join(', ');
    if (pluginVersion && (keys > 0 || alias)) add({ id: 'plugin', state: 'ok', text: `plugin: loaded (version ${pluginVersion}; ${wired})` });
    else
      add({
        id: 'plugin',
        state: 'fail',
        text: `plugin: ${pluginVersion ? `version ${pluginVersion} set, but no key or :fleet alias runs it` : 'not loaded (@fleet-version is unset)'}`,
        fix: "add `set -g @plugin '<owner>/tmux-fleet'` to tmux.conf and press prefix I (TPM), or run tmux-plugin.tmux",
      });

    const sup = runningSupervisor(ctx.home, socketPath);
    if (sup !== null) add({ id: 'supervisor', state: 'ok', text: `supervisor: running (pid ${sup})` });
    else
      add({
        id: 'supervisor',
        state: 'fail',
        text: 'supervisor: not running for this server',
        fix: 'reload the plugin (prefix I, or tmux run-shell <plugin>/tmux-plugin.tmux), or start `tmux-fleet supervise` in the background',
      });
  }

  // Registry.
  const dir = registryDir(ctx.env);
  const snapshot = await readRegistry(dir);
  const rows = snapshot.readable ? await liveRows(snapshot) : [];
  if (!snapshot.readable) {
    add({ id: 'registry', state: 'fail', text: `registry: cannot read ${dir} (${snapshot.error})`, fix: 'fix its permissions, or set @fleet-registry / TMUX_FLEET_REGISTRY to the right directory' });
  } else {
    const stale = rows.filter((x) => x.liveness === 'gone').length;
    const unknown = rows.filter((x) => x.liveness === 'unknown').length;
    const uncheckable = unknown > 0 ? `, ${unknown} not checkable here` : '';
    add({ id: 'registry', state: 'ok', text: `registry: ${dir}: ${rows.length} row${rows.length === 1 ? '' : 's'} (${snapshot.malformed} malformed, ${stale} stale${uncheckable})` });
  }

  // Claude Code hook.
  const settings = settingsFile(ctx.env);
  try {
    const s = await readSettings(settings);
    const found = findStampHooks(s.data);
    // A hook naming a helper file that is gone (an older build's path) stamps nothing.
    const missing = found.map((f) => hookHelperPath(f.command)).filter((p): p is string => p !== null && !existsSync(p));
    if (found.length > 0 && missing.length === found.length) {
      add({ id: 'hook', state: 'fail', text: `hook: SessionStart runs ${missing[0]}, which does not exist (${settings})`, fix: 'tmux-fleet hooks install' });
    } else if (found.length > 0) add({ id: 'hook', state: 'ok', text: `hook: SessionStart runs tmux-fleet stamp (${settings})` });
    else add({ id: 'hook', state: 'fail', text: `hook: no SessionStart hook runs tmux-fleet stamp in ${settings}`, fix: 'tmux-fleet hooks install' });
  } catch (err) {
    add({ id: 'hook', state: 'fail', text: `hook: ${err instanceof Error ? err.message : String(err)}`, fix: `repair ${settings}, then tmux-fleet hooks install` });
  }

  // The session.
  let session: string | null = opts.session ?? null;
  if (session === null && ctx.env.TMUX_PANE && reachable) session = (await paneSession(tmux, ctx.env.TMUX_PANE))?.session ?? null;
  if (session === null) {
    add({ id: 'session', state: 'skip', text: 'session: not inside tmux and no --session given: session checks skipped' });
  } else if (!reachable) {
    add({ id: 'session', state: 'skip', text: `session: ${session}: not checked (no server)` });
  } else {
    await sessionChecks(ctx, tmux, session, rows, snapshot.readable, add);
  }

  return { ok: !checks.some((c) => c.state === 'fail'), server: tmux.describeServer(), session, checks };
}

async function sessionChecks(
  ctx: Context,
  tmux: Tmux,
  session: string,
  rows: LiveRow[],
  registryReadable: boolean,
  add: (c: Check) => void,
): Promise<void> {
  const out = await tmux.tryRun(['display-message', '-p', '-t', sessionTarget(session), '#{session_name}\t#{@claude_session_id}\t#{@fleet-task}\t#{pane_current_path}']);
  const [name = '', stamp = '', task = '', cwd = ''] = out.stdout.replace(/\n$/, '').split('\t');
  if (out.exitCode !== 0 || name === '') {
    add({ id: 'session', state: 'fail', text: `session: no tmux session named "${session}" on ${tmux.describeServer()}`, fix: 'name an existing session with --session (tmux ls)' });
    return;
  }
  for (const c of await statusFitChecks(tmux, session)) add(c); // segments cut by status-left/right-length

  if (stamp) add({ id: 'stamp', state: 'ok', text: `stamp: ${session} runs session ${stamp}` });
  else
    add({
      id: 'stamp',
      state: 'fail',
      text: `stamp: ${session} carries no @claude_session_id`,
      fix: 'install the hook (tmux-fleet hooks install), then start or /clear the agent in that session',
    });

  if (!task) add({ id: 'task', state: 'skip', text: `task: ${session} was not spawned for a task` });
  else if (!stamp) add({ id: 'task', state: 'fail', text: `task ${task}: cannot be judged for ${session} without its stamp`, fix: 'see the stamp check' });
  else {
    const j = await judgeLoaded(ctx, tmux, task, await loadForJudge(ctx.home, task), { sid: stamp, from: 'as' });
    const d = j.decision;
    const h = lastHandover(j.task);
    if (h) {
      add({ id: 'handover', state: 'ok', text: `last handover of ${task}: ${h.from || '(pending)'} → ${h.to} (${h.reason}, ${h.at})` });
    }
    if (d.verdict === 0) add({ id: 'task', state: 'ok', text: `task ${task}: ${session} is its Driver (0 owner)` });
    else if (d.verdict === 9)
      add({
        id: 'task',
        state: 'fail',
        text: `task ${task}: driven by ${d.owner} (${d.liveness}), not by ${session}'s agent (9)`,
        fix: `tmux-fleet takeover ${task}${d.liveness === 'gone' ? '' : ' --force'} from ${session}, if this session should drive it`,
      });
    else add({ id: 'task', state: 'fail', text: `task ${task}: 5 unknown: ${d.reason}`, fix: 'tmux-fleet sweep, or respawn the task (tmux-fleet spawn --replace)' });
  }

  // Attach target: follow the stamp (or, without one, a guess from the pane's directory).
  if (!registryReadable) {
    add({ id: 'attach', state: 'fail', text: 'attach target: unknown (the registry cannot be read)', fix: 'see the registry check' });
    return;
  }
  let base = stamp;
  let guessed = false;
  if (!base) {
    const g = cwd ? guessByCwd(rows, cwd) : null;
    if (!g) {
      add({ id: 'attach', state: 'skip', text: `attach target: no stamp, and no registry row runs in ${session}'s directory` });
      return;
    }
    base = g.row.sessionId;
    guessed = true;
  }
  const f = follow(rows, base);
  if (f.chain.length === 0) {
    add({
      id: 'attach',
      state: 'fail',
      text: `attach target: no registry row holds ${shortSid(base)} (${base})`,
      fix: 'is the agent still running in that session? Is @fleet-registry (TMUX_FLEET_REGISTRY) the directory Claude Code writes to?',
    });
    return;
  }
  const end = f.rows[f.rows.length - 1]!;
  const job = parkedJob(f);
  const how = guessed ? `guessed from ${session}'s directory; ` : '';
  let text: string;
  if (f.hops === 0) {
    const why = f.stop === 'missing' ? `the tab parked its work on job ${end.row.parkedJobId}, but no row runs that job` : 'no hop: the work is in that tab';
    text = `attach target: ${shortSid(base)} (${how}${why})`;
  } else {
    const ids = f.chain.map((l) => shortSid(l.sessionId)).join(' → ');
    const extra = f.stop === 'limit' ? `; stopped after ${f.hops} hops` : f.stop === 'repeat' ? '; the chain loops back' : '';
    text = `attach target: ${ids} (${how}that tab has parked its work on background job ${job}${extra})`;
  }
  const agent = renderAgent({ sessionId: end.row.sessionId, status: end.row.status ?? null, waitingFor: end.row.waitingFor ?? null, alive: end.alive });
  if (!end.alive) {
    add({ id: 'attach', state: 'fail', text: `${text}, but its process ${end.row.pid} is gone`, fix: 'the agent exited; restart it (tmux-fleet spawn --resume for a task)' });
  } else {
    add({ id: 'attach', state: 'ok', text });
    add({ id: 'agent', state: 'ok', text: `agent: ${agent || 'no status'} (from the ${f.hops > 0 ? "job's" : "tab's"} row, pid ${end.row.pid})` });
  }

  // The attached row's messaging socket (the job's when following, not the tab's).
  const whose = f.hops > 0 ? "the job's socket" : "the tab's socket";
  const path = end.row.messagingSocketPath;
  if (!path) {
    add({ id: 'socket', state: 'skip', text: `socket: the attached row names no messaging socket` });
    return;
  }
  const reach = await socketReachable(path);
  if (reach.ok) add({ id: 'socket', state: 'ok', text: `socket: ${elidePath(path)} reachable (${whose})` });
  else
    add({
      id: 'socket',
      state: 'fail',
      text: `socket: ${elidePath(path)} not reachable (${whose}: ${reach.error})`,
      fix: 'the agent is not listening there; restart it',
    });
}
