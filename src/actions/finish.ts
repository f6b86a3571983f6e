// The end of a task and what comes after it (docs/ownership.md#done):
// `done` (acceptance confirmed, the Driver asked to exit its own way and its
// session closed, the worktree and branch ended as worktree-end.ts plans, the
// task archived), `gc` (every task whose Driver is gone and whose worktree is
// clean and merged), `reopen` (an archived task back, its worktree too while
// its branch is there; --resume starts its last conversation) and `label`.
//
// Every refusal comes before anything changes: the task, the Driver (a live
// one that is not the asker needs --force, as a takeover does), the plan for
// the worktree and branch, the confirmation. The Driver's exit can change the
// worktree, so the plan is made again after it, and a refusal then says that
// the Driver was stopped.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Context } from '../context';
import { ExitWith, FleetError, UsageError, errorMessage } from '../errors';
import { agentProcessLiveness } from '../agents/agent-process';
import { isAgentKind, type AgentKind } from '../agents/kind';
import { nudgeSupervisors } from '../nudge';
import { pickCarrier, type Decision } from '../ownership/judge';
import { askerWithoutTmux, judgeLoaded, resolveAsker, type Asker } from '../ownership/owner';
import { spawnTask, type SpawnResult } from '../ownership/spawn';
import { mayBeLive } from '../ownership/takeover';
import { git, oneLine } from '../ownership/git';
import { applyEnd, planEnd, type Commit, type EndPlan, type EndResult } from '../ownership/worktree-end';
import { listWorktrees } from '../ownership/worktree';
import { isArchived, ownerSid, type Task } from '../tasks/schema';
import { assertSlug } from '../tasks/slug';
import { listTasks, noSuchTask, readTask, updateTask } from '../tasks/store';
import { Tmux, socketPathFromTmuxEnv } from '../tmux/client';
import { sendKeyNames } from '../tmux/pane';
import { readStamps } from '../tmux/session-marks';
import { lstat } from '../fs-async';
import { findDriverPane } from './driver-pane';
import { echoInput } from '../text';

export interface DoneOptions {
  merge?: boolean;
  discard?: boolean;
  force?: boolean;
  as?: unknown;
}

/** The Driver as `done` finds it. */
export interface DriverFound {
  /** The tmux session it runs in (carrying its stamp, or the pending spawn's), or null. */
  session: string | null;
  owner: string;
  agent: AgentKind | null;
  /** The asker is the Driver itself (done run from inside it). */
  self: boolean;
  /** May be live (a live or unknown owner, a booting spawn). */
  live: boolean;
  decision: Decision;
}

/** What `done` will do, shown before it is confirmed. */
export interface DonePreview {
  slug: string;
  label: string | null;
  acceptance: string[];
  driver: DriverFound;
  plan: EndPlan;
  options: DoneOptions;
}

/** How the Driver ended. */
export interface DriverEnd {
  session: string;
  agent: AgentKind | null;
  /** Keys sent as the agent's own way to exit (Ctrl-C twice), or null when none was sent. */
  asked: string | null;
  /** The agent's process exited before the session was closed. */
  exited: boolean;
  ms: number;
  /** The session is gone: it closed with its agent, or was closed (false for the asker's own session, which closes as its agent exits). */
  closed: boolean;
  /** It was closed by kill-session (its agent had not exited, or leaves its session open). */
  killed: boolean;
}

export interface DoneResult {
  slug: string;
  acceptance: string[];
  driver: DriverEnd | null;
  plan: EndPlan;
  end: EndResult;
  archivedAt: string;
  /**
   * The asker is the Driver: its exit, left for last (after the caller has
   * printed what was done), since the keys end the very command that asked.
   */
  selfExit: { session: string; how: string | null; run(): Promise<DriverEnd> } | null;
}

/** The agent's own way to exit, for each agent measured: Ctrl-C twice (the first interrupts a turn or a question, the second exits). */
export const EXIT_KEYS: Record<AgentKind, { keys: string[]; how: string }> = {
  claude: { keys: ['C-c'], how: 'Ctrl-C twice' },
  codex: { keys: ['C-c'], how: 'Ctrl-C twice' },
  gemini: { keys: ['C-c'], how: 'Ctrl-C twice' },
};

/** How long an agent is given to exit after its keys, before its session is closed anyway. */
const EXIT_WAIT_MS = 8000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The Driver of a task, judged for the asker. */
async function findDriver(ctx: Context, tmux: Tmux, slug: string, task: Task, asker: Asker): Promise<DriverFound> {
  const j = await judgeLoaded(ctx, tmux, slug, { task }, asker);
  const d = j.decision;
  const owner = ownerSid(task);
  let session: string | null = null;
  if (owner !== '') {
    const stamps = await readStamps(tmux);
    session = pickCarrier(stamps?.get(owner)?.sessions ?? [], task.driverPane);
  } else if (task.driverPane && j.paneRead && !('tmuxError' in j.paneRead) && j.paneRead.nonce === task.spawnNonce) {
    session = task.driverPane;
  }
  return { session, owner, agent: isAgentKind(task.driverAgent) ? task.driverAgent : null, self: d.verdict === 0, live: mayBeLive(d), decision: d };
}

/**
 * Asks the Driver to exit its own way (its exit keys, typed into its pane),
 * waits for its process to go, then closes its session. `self`: the asker is
 * the Driver (done runs inside it): the keys are sent last and nothing waits,
 * since they end this very command's caller; its session closes as its agent
 * exits.
 */
export async function endDriver(tmux: Tmux, session: string, task: Task, self: boolean): Promise<DriverEnd> {
  const started = Date.now();
  const where = await findDriverPane(tmux, session, task);
  const found = where.found ? { pane: where.pane.id, proc: where.proc } : null;
  const agent = isAgentKind(task.driverAgent) ? task.driverAgent : found?.proc && found.proc.kind !== 'other' ? found.proc.kind : null;
  const way = agent ? EXIT_KEYS[agent] : null;
  let asked: string | null = null;
  let exited = false;
  if (found && way) {
    asked = way.how;
    const press = async () => {
      await sendKeyNames(tmux, found.pane, way.keys).catch(() => undefined);
      await sleep(300);
      await sendKeyNames(tmux, found.pane, way.keys).catch(() => undefined);
    };
    await press();
    if (self) return { session, agent, asked, exited: false, ms: Date.now() - started, closed: false, killed: false };
    // A turn in progress takes the first Ctrl-C: asked again once, halfway.
    let again = false;
    while (Date.now() - started < EXIT_WAIT_MS) {
      if (found.proc ? agentProcessLiveness(found.proc) === 'gone' : !(await tmux.hasSession(session))) {
        exited = true;
        break;
      }
      if (!again && Date.now() - started > EXIT_WAIT_MS / 2) {
        again = true;
        await press();
      }
      await sleep(100);
    }
  } else if (self) {
    return { session, agent, asked: null, exited: false, ms: Date.now() - started, closed: false, killed: false };
  }
  const ms = Date.now() - started;
  const r = await tmux.tryRun(['kill-session', '-t', `=${session}:`]);
  const killed = r.exitCode === 0;
  return { session, agent, asked, exited, ms, closed: killed || !(await tmux.hasSession(session)), killed };
}

/** The archive record written with archivedAt (docs/tasks.md#archived-tasks). */
function doneRecord(by: 'done' | 'gc', plan: EndPlan, end: EndResult, at: string): Record<string, unknown> {
  const rec: Record<string, unknown> = { at, by, branch: plan.fate, worktree: end.worktreeRemoved ? 'removed' : plan.worktreeState === 'gone' ? 'gone' : plan.worktreeState === 'none' ? 'none' : 'kept' };
  if (plan.branch) rec.branchName = plan.branch;
  if (plan.branchTip) rec.branchTip = plan.branchTip;
  if (end.merged) rec.merged = { into: end.merged.into, head: end.merged.head, commits: end.merged.commits };
  if (plan.fate === 'discarded') rec.discarded = plan.unmerged.map((c) => `${c.sha} ${c.subject}`);
  return rec;
}

async function archive(ctx: Context, slug: string, by: 'done' | 'gc', plan: EndPlan, end: EndResult, at: string = new Date().toISOString()): Promise<string> {
  await updateTask(ctx.home, slug, (cur) => {
    if (!cur) return null;
    return { ...cur, archivedAt: at, done: doneRecord(by, plan, end, at) };
  });
  return at;
}

/** archivedAt alone: set while `done` finishes the task, removed again (null) when it fails. */
async function setArchivedAt(ctx: Context, slug: string, at: string | null): Promise<void> {
  await updateTask(ctx.home, slug, (cur) => {
    if (!cur) return null;
    const next = { ...cur };
    if (at === null) delete next.archivedAt;
    else next.archivedAt = at;
    return next;
  });
}

/** The commits of `now` that `before` lacks (a Driver that committed while it exited). */
function newCommits(before: readonly Commit[], now: readonly Commit[]): Commit[] {
  const seen = new Set(before.map((c) => c.sha));
  return now.filter((c) => !seen.has(c.sha));
}

/**
 * `tmux-fleet done <slug>`. `confirm` is asked once every check has passed,
 * with what will happen; false changes nothing.
 */
export async function finishTask(ctx: Context, slugArg: unknown, opts: DoneOptions, confirm: (p: DonePreview) => Promise<boolean>): Promise<DoneResult> {
  const slug = assertSlug(slugArg);
  if (opts.merge && opts.discard) throw new UsageError('done: --merge and --discard contradict each other: merge the branch, or drop it');
  const task = await readTask(ctx.home, slug);
  if (!task) throw await noSuchTask(ctx.home, slug);
  if (isArchived(task)) throw new FleetError(`task ${slug} is archived already (${task.archivedAt}); tmux-fleet reopen ${slug} brings it back; nothing changed`);
  const tmux = new Tmux(ctx.socket);
  const asker = askerWithoutTmux(opts.as, ctx.env) ?? (await resolveAsker(tmux, undefined, ctx.env));
  const driver = await findDriver(ctx, tmux, slug, task, asker);
  if (driver.live && !driver.self && !opts.force) {
    const why = driver.decision.reason.split('; to take over on purpose')[0];
    throw new ExitWith(9, `done ${slug} refused, nothing changed: its Driver may still be live (${why}); let it finish (tmux-fleet done ${slug} in its own session), or use --force to stop it`);
  }
  const plan = await planEnd(task, { merge: opts.merge, discard: opts.discard });
  const acceptance = (task.acceptance ?? []).map((a) => a.text);
  const preview: DonePreview = { slug, label: task.label ?? null, acceptance, driver, plan, options: opts };
  if (!(await confirm(preview))) throw new FleetError(`done ${slug}: not confirmed; nothing changed`);

  // Archived before its Driver is stopped: a wake in between sees a task being finished, not a Driver
  // that died (no "its Driver stopped" notice). Any failure from here on takes it back.
  const archivedAt = new Date().toISOString();
  await setArchivedAt(ctx, slug, archivedAt);
  let ended: DriverEnd | null = null;
  let now = plan;
  let end: EndResult;
  try {
    // The Driver first (it may still be writing), unless it is the asker: then last.
    if (driver.session && !driver.self) ended = await endDriver(tmux, driver.session, task, false);
    const stopped = ended ? `its Driver's session ${ended.session} was closed already, and then: ` : '';
    if (ended) {
      const fresh = (await readTask(ctx.home, slug)) ?? task;
      try {
        now = await planEnd(fresh, { merge: opts.merge, discard: opts.discard });
      } catch (err) {
        throw new FleetError(`done ${slug}: ${stopped}${errorMessage(err)}`);
      }
      const extra = newCommits(plan.unmerged, now.unmerged);
      if (now.fate === 'discarded' && extra.length > 0) {
        throw new FleetError(`done ${slug}: ${stopped}${now.branch} got commits while its Driver exited (${extra.map((c) => c.sha.slice(0, 10)).join(', ')}), which --discard was not confirmed for; nothing else changed; run done again`);
      }
    }
    try {
      end = await applyEnd(now);
    } catch (err) {
      throw new FleetError(`done ${slug}: ${stopped}${errorMessage(err)}`);
    }
  } catch (err) {
    await setArchivedAt(ctx, slug, null).catch(() => undefined);
    throw err;
  }
  await archive(ctx, slug, 'done', now, end, archivedAt);
  nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  const own = driver.session && driver.self ? driver.session : null;
  const agent = isAgentKind(task.driverAgent) ? task.driverAgent : null;
  const selfExit = own ? { session: own, how: agent ? EXIT_KEYS[agent].how : null, run: () => endDriver(tmux, own, task, true) } : null;
  return { slug, acceptance, driver: ended, plan: now, end, archivedAt, selfExit };
}

/** A task gc would archive, or why it leaves one. */
export interface GcEntry {
  slug: string;
  label: string | null;
  /** Why its Driver counts as gone. */
  gone: string;
  plan: EndPlan;
  /** The session its gone Driver left (closed with it), if any. */
  session: string | null;
}

export interface GcPlan {
  candidates: GcEntry[];
  /** Tasks left as they are, and why (a live Driver, a dirty or unmerged worktree). */
  kept: { slug: string; why: string }[];
}

/** The Driver is gone: an owner whose every process is gone, or a spawn whose session is gone (or that never had a nonce). */
function goneWhy(d: Decision): string | null {
  if (d.verdict === 9 && d.liveness === 'gone') return `its Driver ${d.owner} is gone`;
  if (d.verdict === 5 && (d.code === 'no-nonce' || d.code === 'nonce-mismatch' || d.code === 'pre-nonce')) return `nobody drives it (${d.reason})`;
  return null;
}

/** What `gc` would do: reads only. */
export async function planGc(ctx: Context): Promise<GcPlan> {
  const tmux = new Tmux(ctx.socket);
  const nobody: Asker = { sid: '', from: 'none' };
  const out: GcPlan = { candidates: [], kept: [] };
  for (const entry of await listTasks(ctx.home)) {
    const task = entry.task;
    if (!task) {
      out.kept.push({ slug: entry.slug, why: `cannot be read (${entry.error?.problem ?? 'invalid'})` });
      continue;
    }
    if (isArchived(task)) continue;
    const driver = await findDriver(ctx, tmux, entry.slug, task, nobody);
    const gone = goneWhy(driver.decision);
    if (!gone) {
      out.kept.push({ slug: entry.slug, why: driver.decision.reason.split('; to take over on purpose')[0] as string });
      continue;
    }
    try {
      const plan = await planEnd(task, { gc: true });
      out.candidates.push({ slug: entry.slug, label: task.label ?? null, gone, plan, session: driver.session });
    } catch (err) {
      out.kept.push({ slug: entry.slug, why: errorMessage(err).replace(/; nothing changed$/, '') });
    }
  }
  return out;
}

export interface GcResult {
  archived: { slug: string; plan: EndPlan; end: EndResult; session: string | null }[];
  /** Candidates that changed between the list and the run (planned again, refused). */
  failed: { slug: string; why: string }[];
}

/** `tmux-fleet gc`: the list (planGc), confirmed, then each candidate ended and archived. */
export async function runGc(ctx: Context, confirm: (p: GcPlan) => Promise<boolean>): Promise<GcPlan & GcResult> {
  const planned = await planGc(ctx);
  const result: GcResult = { archived: [], failed: [] };
  if (planned.candidates.length === 0) return { ...planned, ...result };
  if (!(await confirm(planned))) throw new FleetError('gc: not confirmed; nothing changed');
  const tmux = new Tmux(ctx.socket);
  for (const c of planned.candidates) {
    try {
      const task = await readTask(ctx.home, c.slug);
      if (!task || isArchived(task)) continue;
      // Planned again: time passed while the list was read.
      const plan = await planEnd(task, { gc: true });
      if (c.session) await tmux.tryRun(['kill-session', '-t', `=${c.session}:`]);
      const end = await applyEnd(plan);
      await archive(ctx, c.slug, 'gc', plan, end);
      result.archived.push({ slug: c.slug, plan, end, session: c.session });
    } catch (err) {
      result.failed.push({ slug: c.slug, why: errorMessage(err) });
    }
  }
  nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  return { ...planned, ...result };
}

export interface ReopenResult {
  slug: string;
  /** The worktree added back on its kept branch, or null. */
  worktree: string | null;
  notes: string[];
  spawned: SpawnResult | null;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * `tmux-fleet reopen <slug> [--resume]`: the task back in `tasks` and the
 * dashboard; its worktree added back on its branch when the branch is still
 * there; `--resume` respawns its Driver with its last conversation
 * (spawn --resume, which unarchives it in the same write).
 */
export async function reopenTask(ctx: Context, slugArg: unknown, opts: { resume?: boolean }): Promise<ReopenResult> {
  const slug = assertSlug(slugArg);
  const task = await readTask(ctx.home, slug);
  if (!task) throw await noSuchTask(ctx.home, slug);
  if (!isArchived(task)) throw new FleetError(`task ${slug} is not archived; nothing changed`);
  const notes: string[] = [];
  let added: string | null = null;
  const wt = task.worktree;
  if (wt && task.branch && !(await exists(wt))) {
    const repo = task.repo ?? null;
    const main = repo ? (await listWorktrees(repo))[0] : undefined;
    const tip = main ? await git(main.path, ['rev-parse', '--verify', '--quiet', `refs/heads/${task.branch}`]) : null;
    if (!main) notes.push(`its worktree ${wt} is gone and its repository ${repo ?? '(not recorded)'} cannot be read: no worktree`);
    else if (!tip?.ok) notes.push(`its branch ${task.branch} was deleted (${(task.done as { branch?: string } | undefined)?.branch ?? 'by hand'}): no worktree; it starts in ${main.path}`);
    else {
      await mkdir(dirname(wt), { recursive: true, mode: 0o700 });
      const r = await git(main.path, ['worktree', 'add', '--quiet', '--', wt, task.branch]);
      if (!r.ok) throw new FleetError(`reopen ${slug}: git worktree add ${wt} ${task.branch} failed: ${oneLine(r.stderr)}; nothing changed`);
      added = wt;
    }
  }
  let spawned: SpawnResult | null = null;
  try {
    if (opts.resume) {
      const cwd = (await exists(wt ?? '')) ? undefined : task.repo && (await exists(task.repo)) ? task.repo : undefined;
      spawned = await spawnTask(ctx, slug, { resume: true, cwd });
    } else {
      await updateTask(ctx.home, slug, (cur) => {
        if (!cur) return null;
        const next = { ...cur };
        delete next.archivedAt;
        return next;
      });
    }
  } catch (err) {
    // Nothing half done: the worktree added back goes again.
    if (added && task.repo) await git(task.repo, ['worktree', 'remove', '--', added]).catch(() => undefined);
    throw err;
  }
  nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  return { slug, worktree: added, notes, spawned };
}

/** The longest label `label` takes. */
export const MAX_LABEL = 200;

/** `tmux-fleet label <slug> <text>`: the task's label; '' removes it. */
export async function labelTask(ctx: Context, slugArg: unknown, text: unknown): Promise<{ slug: string; label: string | null; before: string | null }> {
  const slug = assertSlug(slugArg);
  if (typeof text !== 'string') throw new UsageError('label: give the label text ("" removes it)');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) throw new UsageError(`label: ${echoInput(text)} holds a control character (a line break, an escape); a label is one line of text`);
  if ([...text].length > MAX_LABEL) throw new UsageError(`label: longer than ${MAX_LABEL} characters`);
  let before: string | null = null;
  const written = await updateTask(ctx.home, slug, (cur) => {
    if (!cur) return null;
    before = cur.label ?? null;
    const next = { ...cur };
    if (text.trim() === '') delete next.label;
    else next.label = text;
    return next;
  });
  if (!written) throw await noSuchTask(ctx.home, slug);
  nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  return { slug, label: written.label ?? null, before };
}
