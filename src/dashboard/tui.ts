// The dashboard's terminal loop, shown in display-popup (docs/status.md#dashboard).
// The keys are a state machine (keys.ts) fed every key of each input
// chunk in order; this loop draws and carries out the actions: switch the
// client, open / show / stop a background job, restore tasks. Without a
// terminal it prints the table once.
import { errorMessage } from '../errors';
import type { Tmux } from '../tmux/client';
import { switchClient } from '../tmux/switch';
import { readDashboardData } from '../status/agents';
import { jobOutput, openJob, runAgentJob } from './jobs';
import { DashboardKeys, KEYS_HELP, type DashboardAction } from './keys';
import { dashboardLines, dashboardRows, type RowOptions } from './rows';
import { cell } from '../status/table';
import { assertVerdictsTellable } from '../fleet/read';
import type { FleetView } from '../fleet/view';
import { isArchived } from '../tasks/schema';

export interface DashboardOptions {
  tmux: Tmux;
  home: string;
  registry: string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** The client to switch (display-popup cannot tell its command; the binding may export it). */
  client?: string;
  refreshMs?: number;
  /**
   * `r` on a task whose Driver is gone, `R` for every such task: `restore`
   * (docs/ownership.md#restore); resolves with its summary line, and the
   * session of a task restored when one was asked for.
   */
  restore?: (slugs: string[] | null) => Promise<{ summary: string; session: string | null }>;
  /** Whoever looks (resolveViewer), read at each refresh: the reasons are worded for that session id. */
  viewer?: () => Promise<string>;
  /** `r` on an archived task: `reopen <slug> --resume`; resolves with the new tmux session. */
  reopen?: (slug: string) => Promise<string>;
  /** `s`: `tmux-fleet send <target> <text>`; resolves with what to say, or throws the refusal. */
  send?: (target: string, text: string) => Promise<string>;
}

const ESC = '\x1b[';

export async function runDashboard(opts: DashboardOptions): Promise<number> {
  const { input, output } = opts;
  const load = async () => {
    const [data, viewer] = await Promise.all([readDashboardData(opts.tmux, opts.home, opts.registry), opts.viewer?.() ?? Promise.resolve('')]);
    return { ...data, viewer };
  };
  const rowsOf = (data: Awaited<ReturnType<typeof load>>, o: RowOptions = {}) => dashboardRows(data.view, data.agents, Date.now(), undefined, data.viewer, o);
  const first = await load();
  assertVerdictsTellable(first.view, opts.tmux, 'dashboard');
  if (!input.isTTY) {
    const rows = rowsOf(first);
    const { header, lines } = dashboardLines(rows, output.columns || 80);
    output.write(`${[header, ...lines].join('\n')}\n`);
    return 0;
  }

  let view: FleetView = first.view;
  let agentCount = first.agents.length;
  let last = first;
  const keys = new DashboardKeys(rowsOf(first));
  /** The rows as the keys ask for them (archived shown, grouped). */
  const shownRows = (data: typeof first) => rowsOf(data, { archived: keys.showArchived, group: keys.grouped });
  /** A job's output shown over the table until a key is pressed. */
  let pager: { title: string; lines: string[] } | null = null;
  let busy = false;

  const draw = () => {
    const width = output.columns || 80;
    const height = output.rows || 24;
    const screen: string[] = [];
    if (pager) {
      screen.push(`${ESC}1m${cell(pager.title).slice(0, width - 1)}${ESC}0m`);
      const room = Math.max(1, height - 3);
      for (const l of pager.lines.slice(-room)) screen.push(cell(l).slice(0, width - 1));
      while (screen.length < height - 1) screen.push('');
      screen.push(`${ESC}2many key: back${ESC}0m`);
      output.write(`${ESC}H${ESC}2J${screen.join('\r\n')}`);
      return;
    }
    const rows = keys.rows;
    // One column short of the edge: writing the last column would make the terminal wrap.
    const { header, lines } = dashboardLines(rows, width - 1);
    const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
    const waiting = rows.filter((r) => r.attention).length;
    const restorable = rows.filter((r) => r.ownerGone).length;
    const archived = view.tasks.filter((t) => isArchived(t.task)).length;
    const tasksShown = keys.showArchived ? view.tasks.length : view.tasks.length - archived;
    const extras = `${keys.showArchived && archived ? ` (${archived} archived)` : ''}${keys.grouped ? ' · by repository' : ''}`;
    const title = `tmux-fleet · ${plural(tasksShown, 'task')}${extras}, ${plural(view.sessions.length, 'agent session')}, ${plural(agentCount, 'other agent')}${waiting ? ` · ${waiting} waiting` : ''}${restorable ? ` · ${restorable} restorable (R)` : ''}${keys.filter ? ` · filter: ${keys.filter}` : ''}`;
    screen.push(`${ESC}1m${cell(title).slice(0, width - 1)}${ESC}0m`, `${ESC}2m${header}${ESC}0m`);
    // The selected task's acceptance gate, on its own line above the reason (which is long, and cut at the edge).
    const gate = !keys.confirm && !keys.filtering && !keys.sending && !keys.message && keys.current()?.gate ? `accept: ${keys.current()?.gate}` : '';
    const room = Math.max(1, height - 5 - (gate ? 1 : 0));
    const top = Math.max(0, Math.min(keys.selected - room + 1, rows.length - room));
    lines.slice(top, top + room).forEach((l, i) => {
      screen.push(top + i === keys.selected ? `${ESC}7m${l.padEnd(width - 1)}${ESC}0m` : l);
    });
    if (rows.length === 0) screen.push(keys.filter ? `  nothing matches ${cell(keys.filter)}` : '  no tasks and no agents');
    while (screen.length < height - 2 - (gate ? 1 : 0)) screen.push('');
    if (gate) screen.push(`${ESC}2m${cell(gate).slice(0, width - 1)}${ESC}0m`);
    const bottom = keys.statusLine() || (view.tmuxError ? `tmux: ${view.tmuxError}` : '');
    screen.push(`${ESC}2m${cell(bottom).slice(0, width - 1)}${ESC}0m`);
    screen.push(`${ESC}2m${KEYS_HELP.slice(0, width - 1)}${ESC}0m`);
    output.write(`${ESC}H${ESC}2J${screen.join('\r\n')}`);
  };

  const refresh = async () => {
    try {
      const data = await load();
      last = data;
      view = data.view;
      agentCount = data.agents.length;
      keys.setRows(shownRows(data));
    } catch (err) {
      keys.message = errorMessage(err);
    }
    draw();
  };

  output.write(`${ESC}?1049h${ESC}?25l`);
  input.setRawMode(true);
  input.resume();
  draw();
  const timer = setInterval(() => {
    // Not while a prompt is being typed: the row it goes to stays put.
    if (!busy && !pager && !keys.sending) void refresh();
  }, opts.refreshMs ?? 2000);
  const onResize = () => draw();
  output.on('resize', onResize);

  return new Promise<number>((resolve) => {
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      output.off('resize', onResize);
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write(`${ESC}?25h${ESC}?1049l`);
      resolve(code);
    };

    /** Carries out one action; true when the dashboard should close. */
    const perform = async (a: DashboardAction): Promise<boolean> => {
      switch (a.type) {
        case 'quit':
          return true;
        case 'refresh':
          await refresh();
          return false;
        case 'switch':
          await switchClient(opts.tmux, a.session, opts.client);
          return true;
        case 'attach': {
          keys.message = `opening job ${a.jobId}…`;
          draw();
          await openJob(opts.tmux, a.jobId, a.parkedBy, opts.client);
          return true;
        }
        case 'logs': {
          keys.message = `reading the output of job ${a.jobId}…`;
          draw();
          pager = await jobOutput(opts.tmux, opts.registry, a.jobId);
          keys.message = '';
          return false;
        }
        case 'stop': {
          keys.message = `stopping job ${a.jobId}…`;
          draw();
          const r = await runAgentJob(opts.tmux, 'stop', a.jobId);
          keys.message = r.exitCode === 0 ? `job ${a.jobId} stopped` : `stop ${a.jobId} failed (exit ${r.exitCode}): ${r.lines.slice(-1)[0] ?? ''}`;
          await refresh();
          return false;
        }
        case 'restore': {
          if (!opts.restore) {
            keys.message = 'restore is not available here';
            return false;
          }
          keys.message = a.slugs ? `restoring ${a.slugs.join(', ')}…` : 'restoring every task whose Driver is gone…';
          draw();
          const r = await opts.restore(a.slugs);
          // One task restored: the client follows to it; otherwise the summary stays on the bottom line.
          if (r.session) {
            await switchClient(opts.tmux, r.session, opts.client);
            return true;
          }
          await refresh();
          keys.message = r.summary;
          return false;
        }
        case 'reopen': {
          if (!opts.reopen) {
            keys.message = 'reopen is not available here';
            return false;
          }
          keys.message = `reopening ${a.slug}…`;
          draw();
          const session = await opts.reopen(a.slug);
          await switchClient(opts.tmux, session, opts.client);
          return true;
        }
        case 'rows':
          keys.setRows(shownRows(last));
          return false;
        case 'send': {
          if (!opts.send) {
            keys.message = 'send is not available here';
            return false;
          }
          keys.message = `sending to ${a.target}…`;
          draw();
          keys.message = await opts.send(a.target, a.text);
          await refresh();
          return false;
        }
      }
    };

    // Actions run one at a time, in the order their keys came.
    let queue: Promise<void> = Promise.resolve();
    const onData = (buf: Buffer) => {
      if (pager) {
        pager = null;
        draw();
        return;
      }
      const actions = keys.feed(buf.toString('utf8'));
      draw();
      for (const a of actions) {
        queue = queue.then(async () => {
          if (done) return;
          busy = true;
          try {
            if (await perform(a)) finish(0);
          } catch (err) {
            keys.message = errorMessage(err);
          } finally {
            busy = false;
          }
          if (!done) draw();
        });
      }
    };
    input.on('data', onData);
  });
}
