// What the dashboard and `attention --jump` do to a background job
// (docs/status.md#background-jobs): open it in a tmux window (`<agent cmd>
// attach <id>`), show its recent output (`<agent cmd> logs <id>`), stop it
// (`<agent cmd> stop <id>`). The agent command is the @fleet-agent-cmd option,
// never a guessed path; tmux runs through src/tmux/ with argv arrays.
import { dirname, join } from 'node:path';
import { FleetError, UsageError, errorMessage } from '../errors';
import { readRegistry } from '../registry/reader';
import { jobTranscript } from '../registry/transcript';
import { withoutEscapes } from '../text';
import { optionValue } from '../options';
import { isJobId } from '../registry/job-id';
import { sessionTarget } from '../tmux/args';
import type { Tmux } from '../tmux/client';
import { switchClient } from '../tmux/switch';
import { fleetWaiters, readDashboardData } from '../status/agents';
import { unseenTime } from './rows';

/** A job id as Claude Code writes it, else a UsageError: nothing else reaches a command line (the agent takes no `--`). */
export function assertJobId(jobId: string): string {
  if (!isJobId(jobId)) throw new UsageError(`not a background job id: ${JSON.stringify(jobId.slice(0, 80))}`);
  return jobId;
}

export interface JobOptions {
  /** @fleet-agent-cmd: a command line for sh (default claude). */
  agentCmd: string;
  /** @fleet-jobs-session: where a job with no parking session opens (default fleet-jobs). */
  jobsSession: string;
}

/** The two options, in one tmux call (global values; an unset one reads as its default). */
export async function readJobOptions(tmux: Tmux): Promise<JobOptions> {
  const r = await tmux.tryRun(['display-message', '-p', '#{@fleet-agent-cmd}\t#{@fleet-jobs-session}']);
  const [cmd = '', session = ''] = r.exitCode === 0 ? r.stdout.replace(/\n$/, '').split('\t') : [];
  return { agentCmd: optionValue('@fleet-agent-cmd', cmd), jobsSession: optionValue('@fleet-jobs-session', session) };
}

/** argv running `<agent cmd> <verb> <job id>`: the command is a shell command line (like spawn's), the id an argument. */
export function agentJobArgv(agentCmd: string, verb: 'attach' | 'logs' | 'stop', jobId: string): string[] {
  if (agentCmd.trim() === '') throw new UsageError('option @fleet-agent-cmd is empty');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(agentCmd)) throw new UsageError('option @fleet-agent-cmd holds a control character');
  return ['/bin/sh', '-c', `exec ${agentCmd} "$@"`, 'tmux-fleet-agent', verb, assertJobId(jobId)];
}

/**
 * The tmux commands that open a job in a new window: in `session` when it
 * exists, else in a new detached session of that name; then the window is
 * marked with @fleet-job (the command after new-window acts on the new
 * window), so that the supervisor shows the job's state in its status line.
 */
export function openJobCommands(session: string, exists: boolean, argv: readonly string[], jobId: string): string[][] {
  const name = `job-${jobId}`;
  const mark = ['set-option', '-w', '@fleet-job', jobId];
  if (exists) return [['new-window', '-t', sessionTarget(session), '-n', name, ...argv], mark];
  return [['new-session', '-d', '-s', session, '-n', name, ...argv], mark];
}

export interface OpenedJob {
  session: string;
  createdSession: boolean;
}

/**
 * Opens a job in a tmux window: in the session that parked it when there is
 * one, else in @fleet-jobs-session (created detached when missing); then moves
 * the client there.
 */
export async function openJob(tmux: Tmux, jobId: string, parkedBy: string | null, client?: string): Promise<OpenedJob> {
  const opts = await readJobOptions(tmux);
  const argv = agentJobArgv(opts.agentCmd, 'attach', jobId);
  let session = opts.jobsSession;
  if (parkedBy && (await tmux.hasSession(parkedBy))) session = parkedBy;
  const exists = session === parkedBy || (await tmux.hasSession(session));
  await tmux.chain(openJobCommands(session, exists, argv, jobId));
  await switchClient(tmux, session, client).catch(() => undefined);
  return { session, createdSession: !exists };
}

export interface AgentRun {
  exitCode: number;
  /** stdout and stderr, control sequences removed. */
  lines: string[];
}

/**
 * A terminal's output as lines to read: a TUI redraws with cursor moves, so a
 * move to another row (CUP, CUD, CNL, VPA) starts a line and a move forward
 * is a space; then every escape sequence and control character goes, and
 * blank lines and a line repeated by a redraw collapse.
 */
export function plainLines(text: string): string[] {
  const broken = text
    .replace(/\x1b\[[0-9]*(?:;[0-9]*)?[Hf]|\x1b\[[0-9]*[BEd]/g, '\n')
    .replace(/\x1b\[[0-9]*C/g, ' ');
  const lines = withoutEscapes(broken)
    .split(/\r?\n|\r/)
    .map((l) => l.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '').trimEnd());
  return lines.filter((l, i) => l.trim() !== '' && l !== lines[i - 1]);
}

/** What `l` shows of a job: a title and readable lines. */
export interface JobOutput {
  title: string;
  lines: string[];
}

/**
 * A job's output for the dashboard's `l` (docs/status.md#background-jobs): its
 * conversation from Claude Code's transcript (the job's, else that of the tab
 * it was parked from), readable lines; with no transcript, `<agent cmd> logs
 * <id>`, the job's recent terminal output, as lines (plainLines).
 */
export async function jobOutput(tmux: Tmux, registry: string, jobId: string): Promise<JobOutput> {
  assertJobId(jobId);
  const projects = join(dirname(registry), 'projects');
  const snapshot = await readRegistry(registry);
  const found = jobTranscript(projects, snapshot.entries.map((e) => e.row), jobId);
  if (found) {
    const whose = found.whose === 'job' ? "the job's transcript" : 'the transcript of the tab it was parked from';
    return { title: `job ${jobId}: its conversation (${whose}, ${found.file}${found.cut ? ', its end' : ''})`, lines: found.lines.length ? found.lines : ['(nothing said yet)'] };
  }
  const r = await runAgentJob(tmux, 'logs', jobId);
  return {
    title: `job ${jobId}: recent terminal output (no transcript under ${projects})${r.exitCode === 0 ? '' : ` (exit ${r.exitCode})`}`,
    lines: r.lines.length ? r.lines : ['(no output)'],
  };
}

/** Runs `<agent cmd> <verb> <id>` without a terminal (logs, stop): output captured, at most `timeoutMs`. */
export async function runAgentJob(tmux: Tmux, verb: 'logs' | 'stop', jobId: string, timeoutMs = 15_000): Promise<AgentRun> {
  const { agentCmd } = await readJobOptions(tmux);
  const [bin, ...args] = agentJobArgv(agentCmd, verb, jobId);
  const { execa } = await import('execa');
  try {
    const r = await execa(bin as string, args, { reject: false, stdin: 'ignore', all: true, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 });
    const code = typeof r.exitCode === 'number' ? r.exitCode : 1;
    const lines = plainLines(String(r.all ?? ''));
    if (r.timedOut) lines.push(`(stopped waiting after ${Math.round(timeoutMs / 1000)} s)`);
    return { exitCode: code, lines };
  } catch (err) {
    throw new FleetError(`${verb} ${jobId}: ${errorMessage(err)}`);
  }
}

/** Where `attention --jump` went: a session switched to, a job opened, or nobody waits and nothing is unseen. */
export type Jump = { kind: 'session'; who: string; session: string; unseen?: boolean } | { kind: 'job'; who: string; jobId: string; session: string } | { kind: 'none' };

/**
 * The attention key (docs/status.md#attention): the client goes to the agent
 * that has waited longest: a task's session, or the job opened as Enter opens
 * it; with none waiting, to the session that finished unseen first
 * (docs/notify.md#unseen).
 */
export async function jumpToLongestWait(tmux: Tmux, home: string, registry: string, client?: string): Promise<Jump> {
  const data = await readDashboardData(tmux, home, registry);
  const first = fleetWaiters(data.view, data.agents)[0];
  if (!first) {
    const unseen = data.view.sessions.filter((s) => unseenTime(s.unseen) !== null).sort((a, b) => (unseenTime(a.unseen) as number) - (unseenTime(b.unseen) as number))[0];
    if (!unseen) return { kind: 'none' };
    await switchClient(tmux, unseen.session, client);
    return { kind: 'session', who: unseen.slug ?? unseen.session, session: unseen.session, unseen: true };
  }
  if (first.target.kind === 'session') {
    await switchClient(tmux, first.target.session, client);
    return { kind: 'session', who: first.who, session: first.target.session };
  }
  const opened = await openJob(tmux, first.target.jobId, first.target.parkedBy, client);
  return { kind: 'job', who: first.who, jobId: first.target.jobId, session: opened.session };
}
