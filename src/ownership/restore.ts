// `tmux-fleet restore [<slug>…] [--dry-run]` (docs/ownership.md#restore):
// after tmux or the machine restarted, every task whose Driver is gone gets
// its session again and its agent resuming the conversation it last had: the
// owner after the last handover (/clear included), or, for work parked on a
// background job, that job's conversation. It is `spawn`'s resume for each
// gone Driver: the judge decides who is gone (its rules unchanged), and each
// task is judged again under its own lock before anything is made, so two
// restores at once restore each task once.
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { agentOfCommand } from '../agents/command';
import { AGENT_NAMES, isAgentKind, type AgentKind } from '../agents/kind';
import { registryDir, type Context } from '../context';
import { errorMessage, TaskFileError } from '../errors';
import { jobsDirOf, readJobStates } from '../registry/jobs';
import { continuedIn, findTranscript, transcriptHasConversation } from '../registry/transcript';
import { isValidSid, showSid } from '../sid';
import { isArchived, type Task } from '../tasks/schema';
import { assertSlug } from '../tasks/slug';
import { listTasks, noSuchTask, withTaskLock } from '../tasks/store';
import { Tmux } from '../tmux/client';
import { readSessionPane, type SessionPaneRead } from '../tmux/session-marks';
import { echoInput, printable } from '../text';
import type { Decision } from './judge';
import { judgeLoaded, loadForJudge, sharedReads, type SharedReads } from './owner';
import { spawnSettings, spawnTask, startDirectoryProblem, type SpawnSettings } from './spawn';

/** How long a restore waits for a task's lock: another restore or spawn holds it for a second or so. */
const RESTORE_LOCK_TIMEOUT_MS = 30_000;

/** What restore does with a task. */
export type RestoreAction = 'restored' | 'would-restore' | 'refused' | 'skipped';

/** The conversation a restore resumes: the last owner's, or the background job its tab had parked the work on. */
export interface ResumedConversation {
  sid: string;
  /** `job`: the owner was a tab whose work was parked on job `jobId` (`tab` its session id). */
  whose: 'owner' | 'job';
  jobId?: string;
  tab?: string;
  /** Why the owner's own conversation was resumed although it had parked (its job left none of its own). */
  note?: string;
}

export interface RestoreItem {
  slug: string;
  action: RestoreAction;
  /** One line: what was done, or why not. */
  reason: string;
  session?: string;
  agent?: AgentKind | null;
  conversation?: ResumedConversation;
  /** The pane of an existing session the agent starts in (a shell tmux-resurrect left, the task's own pane), null for a new session. */
  pane?: string | null;
  cwd?: string;
  command?: string;
}

export interface RestoreReport {
  dryRun: boolean;
  /** Tasks restored, or that a dry run would restore. */
  restorable: number;
  refused: number;
  items: RestoreItem[];
}

/** What the judge's verdict says of restoring a task: the session id to resume, a reason to leave it, or a reason it cannot be. */
export type RestoreTarget = { sid: string } | { skip: string } | { refuse: string };

/**
 * The judge's decision for a task, asked by nobody (the asker ""), turned
 * into what a restore does (pure). A Driver is gone when the judge says so:
 * its owner's liveness `gone` (its process dead; `unknown` is never taken for
 * gone), or a pending task whose spawned session is gone (an earlier resume
 * that never stamped: its `priorDriverSid`). The dashboard marks the rows
 * this gives a session id for.
 */
export function restoreTarget(task: Task | null, decision: Decision): RestoreTarget {
  // `done` stopped its Driver on purpose: an archived task is not brought back by a restore (docs/tasks.md#archived-tasks).
  if (isArchived(task)) return { skip: `it is archived (tmux-fleet reopen ${task?.slug ?? '<slug>'} --resume brings it back)` };
  const owner = decision.owner ?? '';
  const checked = (sid: string, what: string): RestoreTarget =>
    isValidSid(sid) ? { sid } : { refuse: `its ${what} ${showSid(sid)} is not a session id, so there is no conversation to resume` };
  switch (decision.code) {
    case 'sid-other':
    case 'pane-other':
      if (decision.liveness === 'gone') return checked(owner, 'last owner id');
      if (decision.liveness === 'unknown') return { refuse: `cannot tell whether its Driver ${showSid(owner)} still runs (its liveness is unknown)` };
      return { skip: `its Driver ${showSid(owner)} runs${decision.ownerSession ? ` in tmux session ${decision.ownerSession}` : ''}` };
    case 'sid-asker':
    case 'pane-asker':
      return { skip: 'its Driver runs' };
    case 'booting':
      return { skip: `its Driver is starting in tmux session ${task?.driverPane ?? '?'} (pending)` };
    case 'no-nonce':
    case 'nonce-mismatch': {
      // Pending, and the session its spawn made is gone: an earlier resume (or restore) that never stamped.
      const prior = task?.priorDriverSid ?? '';
      if (prior === '') return { refuse: `it is pending and never had a session id (its spawned session ${task?.driverPane ?? '?'} is gone): nothing to resume; spawn it again` };
      return checked(prior, 'last owner id');
    }
    default:
      return { refuse: decision.reason };
  }
}

/** The shells a pane may show when nothing runs in it (tmux's #{pane_current_command}: the foreground process's name). */
const SHELLS = new Set(['sh', 'bash', 'zsh', 'fish', 'dash', 'ksh', 'mksh', 'oksh', 'pdksh', 'tcsh', 'csh', 'ash', 'yash', 'nu', 'elvish', 'xonsh', 'pwsh']);

function isShell(command: string, env: NodeJS.ProcessEnv): boolean {
  const name = command.replace(/^-/, '');
  return SHELLS.has(name) || (env.SHELL !== undefined && name === basename(env.SHELL));
}

/**
 * Where the agent starts, given what tmux shows of the session `<prefix><slug>`
 * (pure but for the directory comparison done by the caller): no session, a
 * new one; else a pane to use or a reason the name is taken. A session that
 * tmux-resurrect restored has the name and a shell in its pane, and no fleet
 * mark (it does not save options); its shell must be in the task's directory,
 * where resurrect put it back. The task's own session (its @fleet-task) is
 * used when its pane's process has exited or a shell is all that runs.
 */
export function paneForRestore(session: string, slug: string, read: SessionPaneRead, inTaskDir: boolean, env: NodeJS.ProcessEnv): { pane: string | null } | { refuse: string } {
  if (!read.exists) return { pane: null };
  const taken = `tmux session ${session} is taken by another session`;
  const pane = read.pane;
  if (!pane) return { refuse: `${taken} (no pane to start in)` };
  if (read.task !== '' && read.task !== slug) return { refuse: `${taken} (bound to task ${echoInput(read.task)})` };
  const ours = read.task === slug;
  if (!ours && read.stamp !== '') return { refuse: `${taken} (it carries the stamp of agent ${showSid(read.stamp)})` };
  if (pane.dead && ours) return { pane: pane.id };
  if (isShell(pane.command, env) && (ours || inTaskDir)) return { pane: pane.id };
  const what = pane.dead ? 'its pane has exited' : isShell(pane.command, env) ? `a shell in ${printable(pane.path)}, not in the task's directory` : `it runs ${printable(pane.command)}`;
  return { refuse: `${taken} (${what}); rename or close it, then restore again` };
}

/** Thrown by a restore's check under the task's lock: the task is left as it is, for the reason given. */
class LeaveTask extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/**
 * The directory the agent resumes in: the task's worktree, else its cwd. A
 * worktree path that is now a file, or a link (tmux-fleet makes the worktree
 * a directory at <home>/worktrees/<slug>: a link there is out of place), and
 * a directory that is gone are refused.
 */
async function taskDirectory(task: Task): Promise<{ dir: string } | { refuse: string }> {
  if (task.worktree) {
    const st = await lstat(task.worktree).catch(() => null);
    if (!st) return { refuse: `its worktree ${task.worktree} is gone` };
    if (st.isSymbolicLink()) return { refuse: `its worktree ${task.worktree} is now a link (to ${await realpath(task.worktree).catch(() => 'nowhere')}), not the worktree spawn made` };
    if (!st.isDirectory()) return { refuse: `its worktree ${task.worktree} is now a file, not a directory` };
    const bad = startDirectoryProblem(task.worktree);
    return bad ? { refuse: `its worktree ${JSON.stringify(task.worktree)} ${bad}` } : { dir: task.worktree };
  }
  if (!task.cwd) return { refuse: 'it records no directory to start in' };
  const st = await stat(task.cwd).catch(() => null);
  if (!st) return { refuse: `its directory ${task.cwd} is gone` };
  if (!st.isDirectory()) return { refuse: `its directory ${task.cwd} is now a file, not a directory` };
  const bad = startDirectoryProblem(task.cwd);
  return bad ? { refuse: `its directory ${JSON.stringify(task.cwd)} ${bad}` } : { dir: task.cwd };
}

/**
 * The command that runs the Driver's agent again: the one its spawn ran
 * (agentCommand) unless it is known to run another agent than the one the
 * task recorded of its Driver (driverAgent; a takeover may have brought
 * another), else @fleet-agent-cmd or the agent's own name, whichever runs it.
 * A task that records no agent: its command, else @fleet-agent-cmd.
 */
function agentCommandFor(task: Task, settings: SpawnSettings, env: NodeJS.ProcessEnv, cwd: string): { command: string } | { refuse: string } {
  const option = (): string | null => {
    try {
      return settings.agentCmd();
    } catch {
      return null; // an @fleet-agent-cmd spawn would refuse is no candidate
    }
  };
  const kind = isAgentKind(task.driverAgent) ? task.driverAgent : null;
  if (kind === null) {
    const command = task.agentCommand || option();
    return command ? { command } : { refuse: 'option @fleet-agent-cmd is not a usable command' };
  }
  // The spawn's own command unless it is known to run another agent (a wrapper script runs what it runs); the others must run this one.
  const spawned = task.agentCommand?.trim() ? task.agentCommand : null;
  if (spawned !== null && (agentOfCommand(spawned, env, cwd) ?? kind) === kind) return { command: spawned };
  const candidates = [...new Set([spawned, option(), kind].filter((c): c is string => c !== null))];
  const command = candidates.find((c) => agentOfCommand(c, env, cwd) === kind);
  if (command) return { command };
  return { refuse: `its Driver was ${AGENT_NAMES[kind]}, and no command found here runs it (tried ${candidates.map((c) => echoInput(c)).join(', ')}); put it on PATH or set @fleet-agent-cmd` };
}

/**
 * The conversation to resume for an owner that is a Claude Code tab: when its
 * work was parked on a background job (its transcript's last record is
 * `continued-in`, else the job the task recorded, driverJobId, and that job's
 * state file), the job's conversation, which went on where the tab's stopped;
 * the tab's own when the job left no conversation of its own (it is a fork of
 * the tab's, written only as it records).
 */
function conversationOf(task: Task, owner: string, env: NodeJS.ProcessEnv): ResumedConversation {
  const mine: ResumedConversation = { sid: owner, whose: 'owner' };
  if (task.driverAgent && task.driverAgent !== 'claude') return mine;
  const registry = registryDir(env);
  const projects = join(dirname(registry), 'projects');
  let jobSid: string | null = null;
  try {
    const file = findTranscript(projects, owner);
    jobSid = file ? continuedIn(file) : null;
  } catch {
    jobSid = null; // an unreadable transcript says nothing
  }
  if (jobSid === null && task.driverJobId) jobSid = readJobStates(jobsDirOf(registry), [task.driverJobId]).get(task.driverJobId)?.sessionId ?? null;
  if (jobSid === null || !isValidSid(jobSid) || jobSid === owner) return mine;
  const jobId = task.driverJobId && jobSid.startsWith(task.driverJobId) ? task.driverJobId : jobSid.slice(0, 8);
  let file: string | null = null;
  try {
    file = findTranscript(projects, jobSid);
    if (file && !transcriptHasConversation(file)) file = null;
  } catch {
    file = null;
  }
  if (!file) return { ...mine, note: `its work was parked on background job ${jobId}, which left no conversation of its own` };
  return { sid: jobSid, whose: 'job', jobId, tab: owner };
}

function describeConversation(c: ResumedConversation): string {
  if (c.whose === 'job') return `background job ${c.jobId}'s conversation ${c.sid} (the tab ${c.tab} had parked its work on it)`;
  return `conversation ${c.sid}${c.note ? ` (${c.note})` : ''}`;
}

/** Everything a task's restore needs, or why it is left. */
type Plan = { item: RestoreItem } | { sid: string; conversation: ResumedConversation; session: string; pane: string | null; dir: string; command: string };

/** Judges one task (nobody asking) and plans its restore: reads its file, its session and the registry, changes nothing. */
async function planTask(
  ctx: Context,
  tmux: Tmux,
  settings: SpawnSettings,
  slug: string,
  loaded?: { task: Task | null; taskError?: TaskFileError },
  shared?: SharedReads,
): Promise<Plan> {
  const load = loaded ?? (await loadForJudge(ctx.home, slug));
  const leave = (action: 'refused' | 'skipped', reason: string): Plan => ({ item: { slug, action, reason } });
  if (!load.task && !load.taskError) return leave('refused', (await noSuchTask(ctx.home, slug)).message);
  const j = await judgeLoaded(ctx, tmux, slug, load, { sid: '', from: 'none' }, shared);
  const target = restoreTarget(load.task, j.decision);
  if ('skip' in target) return leave('skipped', target.skip);
  if ('refuse' in target) return leave('refused', target.refuse);
  const task = load.task as Task;
  const where = await taskDirectory(task);
  if ('refuse' in where) return leave('refused', where.refuse);
  const cmd = agentCommandFor(task, settings, ctx.env, where.dir);
  if ('refuse' in cmd) return leave('refused', cmd.refuse);
  const session = settings.session(slug);
  const read = await readSessionPane(tmux, session);
  if (read === null) return leave('refused', `cannot read tmux session ${session}`);
  const inTaskDir = read.pane !== null && (await sameDirectory(read.pane.path, where.dir));
  const placed = paneForRestore(session, slug, read, inTaskDir, ctx.env);
  if ('refuse' in placed) return leave('refused', placed.refuse);
  const conversation = conversationOf(task, target.sid, ctx.env);
  return { sid: target.sid, conversation, session, pane: placed.pane, dir: where.dir, command: cmd.command };
}

async function sameDirectory(a: string, b: string): Promise<boolean> {
  if (a === '' || b === '') return false;
  const [ra, rb] = await Promise.all([realpath(a).catch(() => a), realpath(b).catch(() => b)]);
  return ra === rb;
}

/** The tasks to look at: those named (each checked as a slug), else every task. */
async function slugsToRestore(ctx: Context, named: readonly unknown[]): Promise<{ slug: string; loaded?: { task: Task | null; taskError?: TaskFileError } }[]> {
  if (named.length > 0) return [...new Set(named.map((s) => assertSlug(s)))].map((slug) => ({ slug }));
  return (await listTasks(ctx.home)).map((e) => ({ slug: e.slug, loaded: e.error ? { task: null, taskError: e.error } : { task: e.task ?? null } }));
}

export interface RestoreOptions {
  slugs?: readonly unknown[];
  dryRun?: boolean;
}

/** `restore`: every gone Driver (or those named) back, each task on its own; one refused task never stops the others. */
export async function restoreTasks(ctx: Context, opts: RestoreOptions = {}): Promise<RestoreReport> {
  const wanted = await slugsToRestore(ctx, opts.slugs ?? []);
  const tmux = new Tmux(ctx.socket);
  const settings = await spawnSettings(tmux, 'restore');
  const items: RestoreItem[] = [];
  // One look at every task first, on reads they share (the sessions' marks, the registry: one each, not one per task).
  const shared = sharedReads(tmux, ctx.env);
  const refuse = (slug: string) => (err: unknown): Plan => ({ item: { slug, action: 'refused', reason: errorMessage(err) } });
  for (const { slug, loaded } of wanted) {
    let plan = await planTask(ctx, tmux, settings, slug, loaded, shared).catch(refuse(slug));
    // A task whose Driver lives is left as that look found it. Any other is judged again on fresh reads under the task's
    // lock (a dry run changes nothing: it takes none): a restore running at once has either written the task and made its
    // session, or not begun; never half, which would read as a session of another. Under the lock the task is read again:
    // the list was read before another restore may have written it.
    const left = 'item' in plan && plan.item.action === 'skipped';
    if (!opts.dryRun && !left) plan = await withTaskLock(ctx.home, slug, () => planTask(ctx, tmux, settings, slug), { timeoutMs: RESTORE_LOCK_TIMEOUT_MS }).catch(refuse(slug));
    if ('item' in plan) {
      items.push(plan.item);
      continue;
    }
    const base = { slug, session: plan.session, conversation: plan.conversation, pane: plan.pane, cwd: plan.dir, command: plan.command };
    const how = plan.pane ? `in pane ${plan.pane} of tmux session ${plan.session}` : `in a new tmux session ${plan.session}`;
    if (opts.dryRun) {
      items.push({ ...base, action: 'would-restore', agent: agentOfCommand(plan.command, ctx.env, plan.dir), reason: `would resume ${describeConversation(plan.conversation)} ${how}` });
      continue;
    }
    try {
      const r = await spawnTask(ctx, slug, {
        cmd: plan.command,
        cwd: plan.dir,
        restore: {
          sid: plan.conversation.sid,
          pane: plan.pane,
          handover: plan.conversation.whose === 'job' ? { resumed: plan.conversation.sid, job: plan.conversation.jobId as string } : undefined,
          // Under the task's lock: judged again, and its session looked at again; anything else than planned leaves it.
          check: async (task) => {
            const again = await planTask(ctx, tmux, settings, slug, { task });
            if ('item' in again) throw new LeaveTask(again.item.reason, again.item.action === 'refused');
            if (again.sid !== plan.sid || again.pane !== plan.pane || again.conversation.sid !== plan.conversation.sid) {
              throw new LeaveTask('it changed while restore looked at it (another restore or spawn); run restore again', true);
            }
          },
        },
      });
      items.push({ ...base, action: 'restored', agent: r.agent, reason: `resumed ${describeConversation(plan.conversation)} ${how}` });
    } catch (err) {
      if (err instanceof LeaveTask) items.push({ slug, action: err.refused ? 'refused' : 'skipped', reason: err.message });
      else items.push({ slug, action: 'refused', reason: errorMessage(err).replace(/^spawn(?: --resume)?: /, '') });
    }
  }
  const count = (a: RestoreAction) => items.filter((i) => i.action === a).length;
  return { dryRun: opts.dryRun === true, restorable: count(opts.dryRun ? 'would-restore' : 'restored'), refused: count('refused'), items };
}

/** The one line a restore ends with (the plugin shows it as its message). */
export function restoreSummary(r: RestoreReport): string {
  const plural = (n: number) => `${n} task${n === 1 ? '' : 's'}`;
  const refused = r.refused > 0 ? `; ${plural(r.refused)} refused` : '';
  if (r.dryRun) return `${r.restorable > 0 ? `${plural(r.restorable)} can be restored` : 'nothing to restore'}${refused}`;
  return `${r.restorable > 0 ? `restored ${plural(r.restorable)}` : 'nothing restored'}${refused}`;
}


