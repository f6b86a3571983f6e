// `tmux-fleet send <slug|session|job> <text>` (docs/ownership.md#send): a
// prompt typed into the Driver's pane as the agent takes one typed by hand,
// and the dashboard's send key. Every agent measured (Claude Code 2.1.197 and
// 2.1.333, Codex CLI 0.171.0, Gemini CLI 0.61.0) asks the terminal for
// bracketed paste and takes a pasted text, line breaks and all, as one
// message: the text is pasted as one paste (`paste-buffer -p`), then Enter.
// A background job (Claude Code's) gets it through its own `claude attach`,
// opened in a window of its own for the time it takes.
//
// Refused, with nothing typed: text with control characters (escape
// sequences, NUL, ...), a task nobody owns or whose Driver is gone, a session
// that is not a Driver's, and an agent waiting for an approval or an answer
// (waitsForAnswer: a prompt typed then would answer it).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { runDir, registryDir, type Context } from '../context';
import { FleetError, UsageError } from '../errors';
import { waitsForAnswer } from '../agents/approval';
import type { AgentProcess } from '../agents/agent-process';
import { findDriverPane } from './driver-pane';
import { AGENT_NAMES, type AgentKind } from '../agents/kind';
import { isJobId } from '../registry/job-id';
import { readDashboardData, type DashboardData } from '../status/agents';
import { assertVerdictsTellable } from '../fleet/read';
import type { TaskView } from '../fleet/view';
import { isArchived } from '../tasks/schema';
import { isValidSlug } from '../tasks/slug';
import { echoInput } from '../text';
import { Tmux } from '../tmux/client';
import { capturePane, pasteFile, paneTitle, sendKeyNames, type PaneInfo } from '../tmux/pane';
import type { AgentState } from '../registry/hop';
import { agentJobArgv, readJobOptions } from '../dashboard/jobs';
import { sessionTarget } from '../tmux/args';

/** A prompt is a task description: as long as a launch prompt may be. */
export const MAX_SEND_BYTES = 64 * 1024;

/**
 * The text as it will be pasted, or a UsageError naming what is wrong with it:
 * empty, too long, or holding a control character other than a line break or
 * a tab (an escape sequence, NUL, a carriage return alone, DEL, C1), which a
 * terminal program would act on instead of reading as text. CRLF line ends
 * become LF; trailing line breaks are dropped (the Enter that follows submits).
 */
export function promptTextProblem(raw: string): { text: string } | { problem: string } {
  const text = raw.replace(/\r\n/g, '\n').replace(/[\n\t ]+$/, '');
  if (text.trim() === '') return { problem: 'the prompt is empty' };
  if (Buffer.byteLength(text) > MAX_SEND_BYTES) return { problem: `the prompt is larger than ${MAX_SEND_BYTES / 1024} KiB, the limit` };
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0) as number;
    const name = code === 0x1b ? 'an escape sequence (ESC)' : code === 0 ? 'a NUL' : code === 0x0d ? 'a carriage return' : `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
    return { problem: `the prompt holds ${name} at character ${bad.index + 1}; only text, line breaks and tabs can be sent` };
  }
  return { text };
}

export interface SendResult {
  /** What was given. */
  target: string;
  kind: 'task' | 'job';
  slug: string | null;
  session: string;
  pane: string;
  agent: AgentKind | null;
  jobId: string | null;
  lines: number;
  /** The screen changed after Enter (the agent took it); false: typed, but nothing showed it within a few seconds. */
  taken: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls until the pane shows something other than `before` (blank counts as
 * nothing) and then holds still for `stillMs`; the last capture, or null when
 * nothing changed in time.
 */
async function settledChange(tmux: Tmux, pane: string, before: string, timeoutMs: number, stillMs = 200): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  let last = before;
  let stillSince = Date.now();
  let changed = false;
  for (;;) {
    await sleep(100);
    const now = await capturePane(tmux, pane);
    if (now.trim() !== before.trim() && now.trim() !== '') changed = true;
    if (now !== last) stillSince = Date.now();
    last = now;
    if (changed && Date.now() - stillSince >= stillMs) return now;
    if (Date.now() > deadline) return changed ? last : null;
  }
}

/** The Driver's pane in its session (findDriverPane), or why not. */
async function driverPane(tmux: Tmux, session: string, t: TaskView): Promise<{ pane: PaneInfo; proc: AgentProcess | null }> {
  const found = await findDriverPane(tmux, session, t.task);
  if (found.found) return found;
  if (found.why === 'no-session') throw new FleetError(`tmux session ${session} is gone; nothing typed`);
  throw new FleetError(`cannot tell which pane of ${session} runs the Driver (its agent process is not running there); nothing typed`);
}

interface Resolved {
  kind: 'task' | 'job';
  slug: string | null;
  task: TaskView | null;
  session: string | null;
  jobId: string | null;
  /** The state of the agent the text goes to (Claude Code's row / job state file). */
  state: AgentState | null;
  parkedBy: string | null;
}

/** Where `target` (a task, a Driver's session, a job id) sends to, or why it cannot. */
function resolveTarget(target: string, data: DashboardData): Resolved | null {
  const { view, agents } = data;
  const bySlug = isValidSlug(target) ? view.tasks.find((t) => t.slug === target) : undefined;
  let t = bySlug;
  if (!t) {
    const s = view.sessions.find((v) => v.session === target);
    if (s) {
      t = view.tasks.find((x) => x.session === target && !isArchived(x.task));
      if (!t) {
        const bound = s.slug ? ` (it shows task ${s.slug}${s.decision?.verdict === 9 && s.decision.owner ? `, whose Driver is ${s.decision.owner}${s.decision.ownerSession ? ` in ${s.decision.ownerSession}` : ''}` : ''})` : '';
        throw new FleetError(`tmux session ${target} is not the Driver's session of any task${bound}; send to the task's slug or its Driver's session; nothing typed`);
      }
    }
  }
  if (t) {
    if (isArchived(t.task)) throw new FleetError(`task ${t.slug} is archived; tmux-fleet reopen ${t.slug} --resume brings its Driver back; nothing typed`);
    if (t.error) throw new FleetError(`task ${t.slug} cannot be read: ${t.error}; nothing typed`);
    if (t.owner === '') {
      throw new FleetError(`nobody owns task ${t.slug} yet (${t.decision.reason}); send once its Driver has stamped; nothing typed`);
    }
    if (!t.session) throw new FleetError(`the Driver of ${t.slug} (${t.owner}) runs in no tmux session (${t.decision.reason}); nothing typed`);
    const sv = view.sessions.find((v) => v.session === t!.session);
    if (sv?.agentGone) throw new FleetError(`the Driver of ${t.slug} is gone from tmux session ${t.session} (its agent exited); tmux-fleet spawn ${t.slug} --resume starts it again; nothing typed`);
    // Parked work is worked on in its job: that is where a prompt goes (as the dashboard's Enter opens it).
    if (t.hop?.following && t.hop.jobId) return { kind: 'job', slug: t.slug, task: t, session: t.session, jobId: t.hop.jobId, state: t.state, parkedBy: t.session };
    return { kind: 'task', slug: t.slug, task: t, session: t.session, jobId: null, state: t.state, parkedBy: null };
  }
  if (isJobId(target)) {
    const fromTask = view.tasks.find((x) => x.hop?.jobId === target);
    if (fromTask?.hop) return { kind: 'job', slug: fromTask.slug, task: fromTask, session: fromTask.session, jobId: target, state: fromTask.hop.agent, parkedBy: fromTask.session };
    const fromSession = view.sessions.find((x) => x.hop?.jobId === target);
    if (fromSession?.hop) return { kind: 'job', slug: null, task: null, session: null, jobId: target, state: fromSession.hop.agent, parkedBy: fromSession.session };
    const g = agents.find((a) => a.jobId === target);
    if (g) return { kind: 'job', slug: null, task: null, session: null, jobId: target, state: g.agent, parkedBy: g.kind === 'parked' ? g.session : g.parkedBy };
    throw new FleetError(`no live background job ${target} (Claude Code's registry lists none by that id); nothing typed`);
  }
  return null;
}

/** Pastes the text into a pane, then Enter once the paste shows; whether the agent took it. */
async function typeInto(tmux: Tmux, home: string, pane: string, text: string): Promise<boolean> {
  const dir = await mkdtemp(join(runDir(home), 'send-'));
  try {
    const file = join(dir, 'prompt');
    await writeFile(file, text, { mode: 0o600 });
    const before = await capturePane(tmux, pane);
    await pasteFile(tmux, pane, file, `fleet-send-${randomBytes(6).toString('hex')}`);
    // Enter once the agent has drawn the paste: an Enter inside the paste would be a line break, or be lost.
    const shown = await settledChange(tmux, pane, before, 5000);
    await sendKeyNames(tmux, pane, ['Enter']);
    const after = await settledChange(tmux, pane, shown ?? before, 5000);
    return after !== null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Refused when the agent waits for an answer: the text would answer it. */
function refuseWhileWaiting(who: string, agent: AgentKind | null, state: AgentState | null, title: string | null): void {
  const waits = waitsForAnswer({ agent, state, paneTitle: title });
  if (waits) throw new FleetError(`${who}: ${waits}; a prompt typed now would answer it: answer it first (tmux-fleet attention --jump); nothing typed`);
}

export async function sendPrompt(ctx: Context, target: string, raw: string): Promise<SendResult> {
  const checked = promptTextProblem(raw);
  if ('problem' in checked) throw new UsageError(`send: ${checked.problem}; nothing typed`);
  const text = checked.text;
  const tmux = new Tmux(ctx.socket);
  const data = await readDashboardData(tmux, ctx.home, registryDir(ctx.env));
  assertVerdictsTellable(data.view, tmux, 'send');
  const r = resolveTarget(target, data);
  if (!r) {
    // A session the view does not show: neither stamped nor bound to a task.
    if (await tmux.hasSession(target)) throw new FleetError(`tmux session ${target} is not the Driver's session of any task (no agent stamped it, no task is bound to it); nothing typed`);
    throw new FleetError(`no task, Driver's tmux session or background job is named ${echoInput(target)}; nothing typed`);
  }
  const lines = text.split('\n').length;

  if (r.kind === 'job') return sendToJob(ctx, tmux, target, r, text, lines);

  const t = r.task as TaskView;
  const session = r.session as string;
  const { pane, proc } = await driverPane(tmux, session, t);
  const agent = t.agent ?? (proc && proc.kind !== 'other' ? proc.kind : null);
  if (pane.inMode) throw new FleetError(`the Driver's pane ${pane.id} in ${session} is in copy mode (a paste would go to the mode); leave it (q) first; nothing typed`);
  refuseWhileWaiting(`the Driver of ${t.slug}`, agent, r.state, pane.title);
  const taken = await typeInto(tmux, ctx.home, pane.id, text);
  return { target, kind: 'task', slug: t.slug, session, pane: pane.id, agent, jobId: null, lines, taken };
}

/** How long a `claude attach` window is given to draw its prompt before the text is pasted. */
const ATTACH_READY_MS = 30_000;

/**
 * A background job (Claude Code's): its own `claude attach <id>` in a window
 * of its own (in the session that parked it, else @fleet-jobs-session),
 * the text pasted there once the job's screen holds still, then Enter; the
 * window is closed again (the job runs on: `claude attach` leaves it running).
 */
async function sendToJob(ctx: Context, tmux: Tmux, target: string, r: Resolved, text: string, lines: number): Promise<SendResult> {
  const jobId = r.jobId as string;
  refuseWhileWaiting(`background job ${jobId}`, 'claude', r.state, null);
  const opts = await readJobOptions(tmux);
  const argv = agentJobArgv(opts.agentCmd, 'attach', jobId);
  const session = r.parkedBy && (await tmux.hasSession(r.parkedBy)) ? r.parkedBy : opts.jobsSession;
  const exists = await tmux.hasSession(session);
  const open = exists
    ? ['new-window', '-d', '-P', '-F', '#{pane_id}', '-t', sessionTarget(session), '-n', `send-${jobId}`, ...argv]
    : ['new-session', '-d', '-P', '-F', '#{pane_id}', '-s', session, '-n', `send-${jobId}`, ...argv];
  const pane = (await tmux.run(open)).trim();
  try {
    // Ready when its screen has drawn and holds still.
    const ready = await settledChange(tmux, pane, '', ATTACH_READY_MS, 1000);
    if (ready === null) throw new FleetError(`claude attach ${jobId} drew nothing in ${ATTACH_READY_MS / 1000} s; nothing typed`);
    const title = await paneTitle(tmux, pane);
    refuseWhileWaiting(`background job ${jobId}`, 'claude', r.state, title);
    const taken = await typeInto(tmux, ctx.home, pane, text);
    return { target, kind: 'job', slug: r.slug, session, pane, agent: 'claude', jobId, lines, taken };
  } finally {
    // The attach client goes; the job keeps running.
    await tmux.tryRun(['kill-pane', '-t', pane]);
  }
}

/** For messages: `Claude Code` for claude, or the command's name. */
export function agentName(agent: AgentKind | null): string {
  return agent ? AGENT_NAMES[agent] : 'the agent';
}
