// `tmux-fleet spawn <slug>` (docs/ownership.md#spawn): mint or respawn a task's Driver
// in its own tmux session, proven by a random nonce set on the session before
// the agent starts, in the same tmux call that creates it.
//
// Order, so that a failure leaves nothing behind (no session, no task write,
// no half worktree): validate every input and read the task and the tmux
// options first; then the worktree; then launch-prompt.md; then ONE tmux call
// (new-session with a placeholder, set @spawn_nonce and @fleet-task, respawn-pane
// with the agent); then ONE locked task write. Each later failure undoes the
// earlier steps.
import { randomBytes, randomUUID } from 'node:crypto';
import { agentOfCommand, launchArgs, promptForm, type PromptForm } from '../agents/command';
import type { AgentKind } from '../agents/kind';
import { chmod, mkdir, rmdir, stat, unlink, writeFile } from '../fs-async';
import { formatBytes, readRegularFileBytes, readUserFile, UnsafeFileError } from '../fs-safe';
import { echoInput } from '../text';
import { isAbsolute, join, resolve } from 'node:path';
import { realpath } from 'node:fs/promises';
import { claudeConfigDir, makePrivateDirs, taskDir, type Context } from '../context';
import { findTranscript, transcriptHasConversation } from '../registry/transcript';
import { FleetError, UsageError, errorMessage } from '../errors';
import { launchPrompt, pointerLine } from '../pointer';
import { nudgeSupervisors } from '../nudge';
import { socketPathFromTmuxEnv } from '../tmux/client';
import { ownerSid, type AcceptanceItem, type Task } from '../tasks/schema';
import { assertSlug } from '../tasks/slug';
import { readTask, withTaskLock } from '../tasks/store';
import { escapeFormat, sessionTarget } from '../tmux/args';
import { Tmux, UNREACHABLE_SERVER_FIX } from '../tmux/client';
import { createSpawnSession, killSessionById, readAsker, readPaneCurrentPath, readSpawnOptions, startInPane, undoStartInPane } from '../tmux/session-marks';
import { optionDefault, optionValue } from '../options';
import { findParentRecord } from './parent';
import { isValidSid } from '../sid';
import { createTaskWorktree, mainCheckout, removeTaskWorktree, type TaskWorktree } from './worktree';

export const LAUNCH_PROMPT_FILE = 'launch-prompt.md';

/**
 * How long a spawn waits for the task's lock: other spawns of the slug hold it
 * from the launch prompt to the record's write (a second or so each).
 */
const SPAWN_LOCK_TIMEOUT_MS = 30_000;

/** A launch prompt is a task description, not a document: longer ones are refused (and /dev/zero ends). */
export const MAX_PROMPT_BYTES = 64 * 1024;
/** argv[0] of the agent's wrapper shell, as `ps` shows it. */
export const AGENT_ARGV0 = 'tmux-fleet-agent';
/** A session-name prefix tmux keeps verbatim (no `.`/`:` rewriting, no format characters). */
export const PREFIX_RULE = /^[A-Za-z0-9_+-]{0,32}$/;

export interface SpawnOptions {
  cmd?: string;
  cwd?: string;
  worktree?: boolean;
  base?: string;
  label?: string;
  prompt?: string;
  promptFile?: string;
  accept?: string[];
  parent?: string;
  replace?: boolean;
  resume?: boolean;
  /** Set by `restore` only (no flag): resume a gone Driver as it was (docs/ownership.md#restore). */
  restore?: RestoreSpawn;
}

/**
 * What `restore` asks of a spawn: resume this session id, in a new session
 * or in a pane of the existing one, with no launch prompt, the task's launcher
 * and parent kept (the spawn is not a new launch). `check` runs once the
 * task's lock is held, before anything is made, and throws to leave the task
 * as it is: the task is judged again there, so that two restores at once
 * restore it once.
 */
export interface RestoreSpawn {
  /** The session id to resume: the last owner's, or the job its tab parked the work on. */
  sid: string;
  /** A pane of the existing session to start the agent in (a shell tmux-resurrect left, the task's own dead pane); null: a new session. */
  pane: string | null;
  check(task: Task | null): Promise<void>;
  /** Keys added to the resume handover (the conversation resumed, when it is not the owner's). */
  handover?: Record<string, string>;
}

export interface SpawnResult {
  slug: string;
  session: string;
  /** tmux's id of the new session ($N). */
  sessionId: string;
  /** The agent the command runs, told from the file it runs (null: another agent). */
  agent: AgentKind | null;
  spawnNonce: string;
  cwd: string;
  command: string;
  launcherSid: string | null;
  parentSid: string | null;
  resumed: string | null;
  promptFile: string | null;
  pointer: boolean;
  worktree: string | null;
  branch: string | null;
  base: string | null;
  respawn: boolean;
  /** The pane the agent was started in when an existing session was used (restore), else null. */
  reusedPane: string | null;
}

/** A new nonce: 128 random bits, 32 lowercase hex characters. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The agent's argv, run by tmux without a shell reading it as one string. The
 * configured command is shell text (it is the user's command line); everything
 * else reaches it as separate arguments ("$@"). The launch prompt is read from
 * its file by the wrapper (`$(cat)` with a sentinel keeps trailing newlines),
 * so its text is never parsed by a shell and never passes through tmux, whose
 * client refuses command lines over 16 KiB. It reaches the agent as one
 * argument in the agent's form (PromptForm): after `--`, or as `--option=<text>`,
 * so that a prompt starting with `-` is never read as the agent's options.
 */
export function agentArgv(command: string, extraArgs: readonly string[], promptFile: string | null, form: PromptForm = { kind: 'last' }): string[] {
  if (promptFile === null) return ['/bin/sh', '-c', `exec ${command} "$@"`, AGENT_ARGV0, ...extraArgs];
  // The option is one of ours (launchArgs), never data: it may stand in the script.
  let prompt = '"${p%.}"';
  if (form.kind === 'after-options') prompt = `-- ${prompt}`;
  else if (form.kind === 'option' && /^--[a-z][a-z-]*$/.test(form.option)) prompt = `"${form.option}=\${p%.}"`;
  const script = `f=$1; shift; p=$(cat -- "$f" && printf .) || exit 1; exec ${command} "$@" ${prompt}`;
  return ['/bin/sh', '-c', script, AGENT_ARGV0, promptFile, ...extraArgs];
}

/**
 * Why tmux cannot be given this start directory, or null. tmux 3.3a expands
 * formats in a `-c` directory, and `#[` even when doubled, so a `#` is refused,
 * as is a control character (docs/tmux.md#facts-measured-on-tmux-33a).
 */
export function startDirectoryProblem(dir: string): string | null {
  if (dir.includes('#')) return 'holds a #, which tmux expands in a start directory; use a directory without #';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(dir)) return 'holds a control character';
  return null;
}

function assertCommand(cmd: string, what: string): string {
  if (cmd.trim() === '') throw new UsageError(`${what}: the agent command is empty`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(cmd)) throw new UsageError(`${what}: the agent command holds a control character (newline, tab, ...)`);
  return cmd;
}

export interface SpawnSettings {
  /** `<@fleet-session-prefix><slug>`. */
  session(slug: string): string;
  /** @fleet-agent-cmd, else its default (checked when it is read: a spawn with --cmd never reads it). */
  agentCmd(): string;
}

/**
 * The server's spawn settings, read in one tmux call: the session name prefix
 * and the agent command. The server must be running: spawn never starts one.
 */
export async function spawnSettings(tmux: Tmux, what: string): Promise<SpawnSettings> {
  let options: { prefix: string; agentCmd: string };
  try {
    options = await readSpawnOptions(tmux);
  } catch (err) {
    throw new FleetError(`${what}: no usable tmux server (${tmux.describeServer()}): ${errorMessage(err).replace(/^tmux \S+ on [^:]+: /, '')}; fix: ${UNREACHABLE_SERVER_FIX}`);
  }
  const prefix = optionValue('@fleet-session-prefix', options.prefix);
  if (!PREFIX_RULE.test(prefix)) {
    throw new UsageError(`${what}: option @fleet-session-prefix ${JSON.stringify(prefix)} must match ${PREFIX_RULE.source} (tmux rewrites . and : and expands #)`);
  }
  return {
    session: (slug) => `${prefix}${slug}`,
    agentCmd: () => (options.agentCmd === '' ? optionDefault('@fleet-agent-cmd') : assertCommand(options.agentCmd, 'option @fleet-agent-cmd')),
  };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

interface Undo {
  steps: (() => Promise<void>)[];
}

/** Runs fn; when it throws, the undo steps (last first), and the error names what they could not undo. */
async function undoing<T>(u: Undo, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const left = await runUndo(u);
    if (left.length > 0) throw new FleetError(`${errorMessage(err)}; and the rollback left: ${left.join('; ')}`);
    throw err;
  }
}

async function runUndo(u: Undo): Promise<string[]> {
  const left: string[] = [];
  for (const step of [...u.steps].reverse()) {
    try {
      await step();
    } catch (err) {
      left.push(errorMessage(err));
    }
  }
  return left;
}

/** The transcript of `sid` when it exists and holds no message (a file that cannot be read tells nothing: null). */
function unresumableTranscript(projectsDir: string, sid: string): string | null {
  try {
    const file = findTranscript(projectsDir, sid);
    return file !== null && !transcriptHasConversation(file) ? file : null;
  } catch {
    return null;
  }
}

export async function spawnTask(ctx: Context, slugArg: unknown, opts: SpawnOptions): Promise<SpawnResult> {
  const slug = assertSlug(slugArg);
  const env = ctx.env;

  // --- Inputs: all checked before anything runs. ---
  if (opts.prompt !== undefined && opts.promptFile !== undefined) throw new UsageError('spawn: give --prompt or --prompt-file, not both');
  let promptText = opts.prompt ?? '';
  if (opts.promptFile !== undefined) {
    try {
      // Capped: `--prompt-file /dev/zero` ends with this error, not an endless read.
      promptText = readUserFile(opts.promptFile, MAX_PROMPT_BYTES);
    } catch (err) {
      throw new UsageError(`spawn: --prompt-file ${err instanceof UnsafeFileError ? err.message : `${opts.promptFile}: ${errorMessage(err)}`}`);
    }
  }
  if (Buffer.byteLength(promptText) > MAX_PROMPT_BYTES) throw new UsageError(`spawn: the prompt is larger than ${formatBytes(MAX_PROMPT_BYTES)}, the limit`);
  if (opts.base !== undefined && !opts.worktree) throw new UsageError('spawn: --base needs --worktree');
  if (opts.parent !== undefined && !isValidSid(opts.parent)) throw new UsageError(`spawn: --parent ${echoInput(opts.parent)} is not a session id`);
  const accept = (opts.accept ?? []).map((t) => {
    if (typeof t !== 'string' || t.trim() === '') throw new UsageError('spawn: --accept needs a non-empty text');
    return t;
  });
  if (opts.cmd !== undefined) assertCommand(opts.cmd, 'spawn --cmd');
  let cwdFlag: string | undefined;
  if (opts.cwd !== undefined) {
    cwdFlag = resolve(opts.cwd);
    if (!(await isDirectory(cwdFlag))) throw new UsageError(`spawn: --cwd ${cwdFlag} is not a directory`);
    const bad = startDirectoryProblem(cwdFlag);
    if (bad) throw new UsageError(`spawn: --cwd ${JSON.stringify(cwdFlag)} ${bad}`);
  }

  // The task as it is now; a corrupt task.json stops the spawn before anything runs.
  const previous = await readTask(ctx.home, slug);
  const restore = opts.restore ?? null;
  let resumeSid: string | null = null;
  if (opts.resume || restore) {
    const sid = restore ? restore.sid : previous ? ownerSid(previous) || previous.priorDriverSid || '' : '';
    if (!isValidSid(sid)) throw new UsageError(`spawn --resume: task ${slug} records no previous Driver session id to resume`);
    resumeSid = sid;
    // Only Claude Code writes under its projects directory: a transcript there with no message cannot be resumed (docs/ownership.md#resume).
    const transcript = unresumableTranscript(join(claudeConfigDir(env), 'projects'), sid);
    if (transcript !== null) {
      throw new FleetError(`spawn --resume: session ${sid} has no conversation to resume (its transcript ${transcript} holds no message yet); spawn ${slug} without --resume`);
    }
  }

  // --- tmux: the server must be running; its options name the session and the agent. ---
  const tmux = new Tmux(ctx.socket);
  const settings = await spawnSettings(tmux, 'spawn');
  const session = settings.session(slug);
  const command = opts.cmd ?? settings.agentCmd();

  // The caller: launcher (never the owner) and, by default, the parent.
  const envSid = env.CLAUDE_CODE_SESSION_ID && isValidSid(env.CLAUDE_CODE_SESSION_ID) ? env.CLAUDE_CODE_SESSION_ID : '';
  let paneStamp = '';
  if (env.TMUX_PANE && /^%\d+$/.test(env.TMUX_PANE)) {
    const read = await readAsker(tmux, env.TMUX_PANE);
    if (read?.found && isValidSid(read.stamp)) paneStamp = read.stamp;
  }
  // A restore is no new launch: the task keeps the launcher and parent it had.
  const launcherSid = restore ? (previous?.launcherSid ?? null) : envSid || paneStamp || null;
  const parentSid = restore ? (previous?.parentSid ?? null) : (opts.parent ?? (paneStamp || envSid || null));

  // A restore has looked at the session already, and looks again under the task's lock.
  if (!restore && (await tmux.hasSession(session)) && !opts.replace) {
    throw new FleetError(`spawn: tmux session ${session} already exists (${tmux.describeServer()}); use --replace to kill it and respawn`);
  }

  const pointer = restore ? null : pointerLine(await findParentRecord(ctx.home, parentSid));
  // The acceptance gate: every item of the task (a resumed conversation has seen the earlier ones: only the new).
  const gate = [...(resumeSid ? [] : (previous?.acceptance ?? []).map((a) => a.text)), ...accept];
  const prompt = launchPrompt(promptText, pointer, gate);

  const undo: Undo = { steps: [] };
  return undoing(undo, async () => {
    // --- The worktree (before anything else is made). ---
    let wt: TaskWorktree | null = null;
    if (opts.worktree) {
      wt = await createTaskWorktree({ repoCwd: cwdFlag ?? process.cwd(), slug, base: opts.base, home: ctx.home });
      const made = wt;
      undo.steps.push(() => removeTaskWorktree(made));
    }
    let cwd = wt?.worktree ?? cwdFlag ?? null;
    if (cwd === null && previous?.worktree && isAbsolute(previous.worktree) && (await isDirectory(previous.worktree))) {
      cwd = previous.worktree; // a respawn goes back to the task's own worktree
    }
    cwd ??= process.cwd();
    const agentCwd = cwd;
    const agent = agentOfCommand(command, env, cwd);
    if (promptForm(agent).kind === 'last' && prompt.startsWith('-')) {
      throw new UsageError(
        `spawn: the prompt starts with '-', which ${echoInput(command)} could read as its options; tmux-fleet knows how to pass such a prompt only to claude, codex and gemini (start it with a word)`,
      );
    }
    const badCwd = startDirectoryProblem(cwd);
    if (badCwd) throw new UsageError(`spawn: the agent's directory ${JSON.stringify(cwd)} ${badCwd}`);
    // The repository the task works in (its main checkout), for `tasks`, the dashboard and `done` (docs/tasks.md#keys).
    const repo = wt ? wt.mainCheckout : await mainCheckout(agentCwd).catch(() => null);

    const dir = taskDir(ctx.home, slug);
    if (!(await isDirectory(dir))) {
      makePrivateDirs(ctx.home);
      try {
        await mkdir(dir, { mode: 0o700 });
        undo.steps.push(() => rmdir(dir).catch(() => undefined));
      } catch (err) {
        // A concurrent spawn of this slug made it first: it is the task's directory all the same (the lock below serializes them).
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await isDirectory(dir))) throw err;
      }
    }
    await chmod(dir, 0o700);

    // From the launch prompt to the record's write, the task's lock is held: a
    // concurrent spawn of this slug (--replace) cannot replace the session
    // between its creation and the write of its nonce (docs/ownership.md#spawn).
    return withTaskLock(ctx.home, slug, (update) => {
      const locked: Undo = { steps: [] };
      return undoing(locked, async () => {
        // A restore judges the task again now that nothing else can change it.
        if (restore) await restore.check(await readTask(ctx.home, slug));
        // --- launch-prompt.md (0600) in the task directory. ---
        const promptPath = join(dir, LAUNCH_PROMPT_FILE);
        const oldPrompt = (() => {
          try {
            return readRegularFileBytes(promptPath, 4 * MAX_PROMPT_BYTES);
          } catch {
            return null;
          }
        })();
        locked.steps.push(async () => {
          if (oldPrompt === null) await unlink(promptPath).catch(() => undefined);
          else await writeFile(promptPath, oldPrompt, { mode: 0o600 });
        });
        let promptFile: string | null = null;
        if (prompt !== '') {
          await unlink(promptPath).catch(() => undefined);
          await writeFile(promptPath, prompt, { mode: 0o600, flag: 'wx' });
          promptFile = promptPath;
        } else {
          await unlink(promptPath).catch(() => undefined);
        }

        // --- The session: one tmux call; a failed set stops the chain before the agent starts. ---
        if (opts.replace && (await tmux.hasSession(session))) await tmux.killSession(session);
        const nonce = newNonce();
        const paneEnv: Record<string, string> = { TMUX_FLEET_TASK: slug, TMUX_FLEET_HOME: ctx.home };
        if (env.TMUX_FLEET_REGISTRY) paneEnv.TMUX_FLEET_REGISTRY = env.TMUX_FLEET_REGISTRY;
        // Each agent's home, as the spawner has it: the child must see the same registry, hooks and sessions.
        for (const name of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME'] as const) if (env[name]) paneEnv[name] = env[name] as string;
        const launch = launchArgs(agent, { resume: resumeSid, newSessionId: randomUUID });
        const argv = agentArgv(command, launch.args, promptFile, launch.prompt);
        const plan = { session, nonce, slug, cwd: escapeFormat(agentCwd), env: paneEnv, argv };
        const pane = restore?.pane ?? null;
        const created = pane ? await startInPane(tmux, { ...plan, pane }) : await createSpawnSession(tmux, plan);
        if (pane) {
          // Not our session to kill: the pane goes back to its own command, the session loses the nonce.
          locked.steps.push(async () => {
            await undoStartInPane(tmux, session, pane);
          });
        } else if (created.sessionId) {
          const id = created.sessionId;
          locked.steps.push(async () => {
            await killSessionById(tmux, id);
          });
        }
        if (!created.ok) {
          throw new FleetError(
            pane
              ? `spawn: starting the agent in pane ${pane} of tmux session ${session} failed (${created.error})`
              : created.sessionId
                ? `spawn: setting up tmux session ${session} failed (${created.error}); the session was killed`
                : `spawn: cannot create tmux session ${session}: ${created.error}`,
          );
        }
        // The agent runs where the task says, or the spawn fails (tmux could still read the path its own way).
        // tmux answers '' while the new process is still being started: ask again for a moment; '' then is no answer, not a mismatch.
        const where = pane ?? sessionTarget(session);
        let shown = await readPaneCurrentPath(tmux, where);
        for (let i = 0; shown === '' && i < 20; i++) {
          await new Promise((r) => setTimeout(r, 50));
          shown = await readPaneCurrentPath(tmux, where);
        }
        const want = await realpath(agentCwd).catch(() => agentCwd);
        if (shown !== '' && shown !== want) {
          throw new FleetError(`spawn: tmux started the agent in ${JSON.stringify(shown)}, not in ${JSON.stringify(want)}; ${pane ? 'the pane was given back' : 'the session was killed'}`);
        }

        // --- One write: pending owner, the pane, the nonce, the launch fields. ---
        const now = new Date().toISOString();
        const items: AcceptanceItem[] = accept.map((text) => ({ text, addedBy: launcherSid ?? '', addedAt: now }));
        const written = await update((cur) => {
          // agentCommand: what restore runs again (docs/tasks.md#keys).
          const next: Task = { ...(cur ?? { slug }), slug, driverSid: '', driverPane: session, spawnNonce: nonce, cwd: agentCwd, agentCommand: command };
          delete next.driverPid;
          delete next.driverProcStart;
          // The job an earlier Driver's tab parked on is no part of the new process.
          delete next.driverJobId;
          // A respawn brings an archived task back (docs/tasks.md#archived-tasks).
          delete next.archivedAt;
          if (launcherSid) next.launcherSid = launcherSid;
          else delete next.launcherSid;
          if (parentSid) next.parentSid = parentSid;
          else delete next.parentSid;
          if (opts.label !== undefined) next.label = opts.label;
          if (repo && (wt || !cur?.worktree)) next.repo = repo;
          if (wt) {
            next.worktree = wt.worktree;
            next.branch = wt.branch;
            next.base = wt.base;
            (next as Record<string, unknown>).baseCommit = wt.baseCommit;
          }
          if (items.length > 0) next.acceptance = [...(cur?.acceptance ?? []), ...items];
          if (resumeSid) {
            // The task follows to the resumed session: its id is filled in when the Driver stamps (stamp.ts fillPending).
            // The Driver resumed from; a restore of parked work resumes its job's conversation (the handover says which).
            const from = restore && cur ? ownerSid(cur) || cur.priorDriverSid || resumeSid : resumeSid;
            next.priorDriverSid = from;
            next.handovers = [...(cur?.handovers ?? []), { from, to: '', at: now, reason: 'resume', pane: session, ...restore?.handover }];
          }
          return next;
        });
        if (!written || written.spawnNonce !== nonce) throw new FleetError(`spawn: task ${slug} was not written`);
        nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(env));
        return {
          slug,
          session,
          sessionId: created.sessionId as string,
          agent,
          spawnNonce: nonce,
          cwd: agentCwd,
          command,
          launcherSid,
          parentSid,
          resumed: resumeSid,
          promptFile,
          pointer: pointer !== null,
          worktree: wt?.worktree ?? null,
          branch: wt?.branch ?? null,
          base: wt?.base ?? null,
          respawn: previous !== null,
          reusedPane: pane,
        };
      });
    }, { timeoutMs: SPAWN_LOCK_TIMEOUT_MS });
  });
}
