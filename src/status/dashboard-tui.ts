// The dashboard's terminal loop, shown in display-popup: j/k or arrows move,
// Enter switches the client to the row's session, q quits. Without a terminal
// it prints the table once.
import { errorMessage } from '../errors';
import type { Tmux } from '../tmux/client';
import { switchClient } from '../tmux/switch';
import { dashboardLines, dashboardRows, type DashboardRow } from './dashboard';
import { cell } from './table';
import { readFleetView, type FleetView } from './view';

export interface DashboardOptions {
  tmux: Tmux;
  home: string;
  registry: string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** The client to switch (display-popup cannot tell its command; the binding may export it). */
  client?: string;
  refreshMs?: number;
}

const ESC = '\x1b[';
const KEYS_HELP = 'j/k ↑/↓ move · Enter switch · r refresh · q quit';

export async function runDashboard(opts: DashboardOptions): Promise<number> {
  const { input, output } = opts;
  const load = () => readFleetView(opts.tmux, opts.home, opts.registry);
  if (!input.isTTY) {
    const view = await load();
    const rows = dashboardRows(view);
    const { header, lines } = dashboardLines(rows, output.columns || 80);
    output.write(`${[header, ...lines].join('\n')}\n`);
    return 0;
  }

  let view: FleetView = await load();
  let rows: DashboardRow[] = dashboardRows(view);
  let selected = 0;
  let message = '';

  const draw = () => {
    const width = output.columns || 80;
    const height = output.rows || 24;
    // One column short of the edge: writing the last column would make the terminal wrap.
    const { header, lines } = dashboardLines(rows, width - 1);
    const title = `tmux-fleet · ${view.tasks.length} task${view.tasks.length === 1 ? '' : 's'}, ${view.sessions.length} agent session${view.sessions.length === 1 ? '' : 's'}`;
    const screen: string[] = [`${ESC}1m${title}${ESC}0m`, `${ESC}2m${header}${ESC}0m`];
    const room = Math.max(1, height - 5);
    const first = Math.max(0, Math.min(selected - room + 1, rows.length - room));
    lines.slice(first, first + room).forEach((l, i) => {
      const idx = first + i;
      screen.push(idx === selected ? `${ESC}7m${l.padEnd(width - 1)}${ESC}0m` : l);
    });
    if (rows.length === 0) screen.push('  no tasks and no agent sessions');
    while (screen.length < height - 2) screen.push('');
    const reason = selectedReason();
    screen.push(`${ESC}2m${cell(message || reason).slice(0, width - 1)}${ESC}0m`);
    screen.push(`${ESC}2m${KEYS_HELP}${ESC}0m`);
    output.write(`${ESC}H${ESC}2J${screen.join('\r\n')}`);
  };

  const selectedReason = (): string => {
    const row = rows[selected];
    if (!row) return view.tmuxError ? `tmux: ${view.tmuxError}` : '';
    const t = view.tasks.find((x) => x.slug === row.task && x.session === row.session);
    return t ? t.decision.reason : row.session ? `session ${row.session}` : '';
  };

  const refresh = async () => {
    try {
      const keep = rows[selected]?.session ?? rows[selected]?.task;
      view = await load();
      rows = dashboardRows(view);
      const again = rows.findIndex((r) => (r.session ?? r.task) === keep);
      selected = again >= 0 ? again : Math.min(selected, Math.max(0, rows.length - 1));
    } catch (err) {
      message = errorMessage(err);
    }
    draw();
  };

  output.write(`${ESC}?1049h${ESC}?25l`);
  input.setRawMode(true);
  input.resume();
  draw();
  const timer = setInterval(() => void refresh(), opts.refreshMs ?? 2000);
  const onResize = () => draw();
  output.on('resize', onResize);

  return new Promise<number>((resolve) => {
    const finish = (code: number) => {
      clearInterval(timer);
      output.off('resize', onResize);
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write(`${ESC}?25h${ESC}?1049l`);
      resolve(code);
    };
    const onData = (buf: Buffer) => {
      const key = buf.toString('utf8');
      message = '';
      if (key === 'q' || key === '\x03' || key === '\x1b') return finish(0);
      if (key === 'j' || key === `${ESC}B`) selected = Math.min(selected + 1, Math.max(0, rows.length - 1));
      else if (key === 'k' || key === `${ESC}A`) selected = Math.max(0, selected - 1);
      else if (key === 'g') selected = 0;
      else if (key === 'G') selected = Math.max(0, rows.length - 1);
      else if (key === 'r') return void refresh();
      else if (key === '\r' || key === '\n') {
        const row = rows[selected];
        if (!row?.session) {
          message = row ? `task ${row.task} has no tmux session to switch to` : 'nothing selected';
        } else {
          const target = row.session;
          switchClient(opts.tmux, target, opts.client).then(
            () => finish(0),
            (err: unknown) => {
              message = errorMessage(err);
              draw();
            },
          );
          return;
        }
      }
      draw();
    };
    input.on('data', onData);
  });
}
