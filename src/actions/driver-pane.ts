// The Driver's pane in its tmux session: the pane whose first process is the
// Driver's agent process or one of its parents, walking /proc. The process is
// the one its stamp recorded (@fleet-stamp-agent), else the task's
// (driverPid, driverProcStart); only a live one counts. `send` types there and
// `done` asks the agent there to exit: never a pane guessed by its place.
import { agentProcessLiveness, parseAgentProcess, type AgentProcess } from '../agents/agent-process';
import { isAgentKind } from '../agents/kind';
import { readProcStat } from '../proc';
import type { Task } from '../tasks/schema';
import type { Tmux } from '../tmux/client';
import { readSessionPanes, type PaneInfo } from '../tmux/pane';

/** The pane of `panes` whose first process is the process `pid` or one of its parents. */
export function paneOfProcess(panes: readonly PaneInfo[], pid: number): PaneInfo | null {
  const byPid = new Map(panes.map((p) => [p.pid, p]));
  let cur = pid;
  for (let depth = 0; cur > 1 && depth < 32; depth++) {
    const hit = byPid.get(cur);
    if (hit) return hit;
    cur = readProcStat(cur)?.ppid ?? 0;
  }
  return null;
}

export type DriverPane =
  | { found: true; pane: PaneInfo; proc: AgentProcess | null }
  | { found: false; why: 'no-session' | 'not-running' };

/**
 * Where the Driver runs in `session`. A session of one live pane whose stamp
 * recorded no process at all (a stamp set from outside its pane) is that pane,
 * with no process.
 */
export async function findDriverPane(tmux: Tmux, session: string, task: Task | null): Promise<DriverPane> {
  const read = await readSessionPanes(tmux, session);
  if (!read) return { found: false, why: 'no-session' };
  const candidates: AgentProcess[] = [];
  const stamped = parseAgentProcess(read.stampAgent);
  if (stamped) candidates.push(stamped);
  if (task?.driverPid !== undefined && task.driverProcStart && /^\d+$/.test(task.driverProcStart)) {
    candidates.push({ kind: isAgentKind(task.driverAgent) ? task.driverAgent : 'other', pid: task.driverPid, start: task.driverProcStart });
  }
  for (const proc of candidates) {
    if (agentProcessLiveness(proc) !== 'live') continue;
    const pane = paneOfProcess(read.panes, proc.pid);
    if (pane) return { found: true, pane, proc };
  }
  const only = read.panes.length === 1 ? read.panes[0] : undefined;
  if (only && candidates.length === 0 && !only.dead) return { found: true, pane: only, proc: null };
  return { found: false, why: 'not-running' };
}
