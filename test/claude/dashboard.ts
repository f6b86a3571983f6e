// The dashboard as a user drives it: `tmux-fleet dashboard` in a window of its
// own on the world's private server (a real terminal: tmux's pane), read with
// capture-pane and driven with send-keys.
import { readFileSync } from 'node:fs';
import { waitFor } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import type { ClaudeWorld } from './world';

export interface DashboardPane {
  /** The pane's id (`%N`). */
  pane: string;
  /** The screen as text, without attributes. */
  screen(): Promise<string>;
  /** Moves the selection (drawn in reverse video) onto the one table line `line` matches. */
  select(line: RegExp): Promise<void>;
  /** Sends tmux key names (`Enter`, `x`, …), one send-keys each. */
  press(...keys: string[]): Promise<void>;
  /** Whether the dashboard's pane has gone (its process ended and its window closed). */
  gone(): Promise<boolean>;
  /** `q`, then waits for the pane to go. */
  quit(): Promise<void>;
}

const REVERSE = /\x1b\[(?:[0-9;]*;)?7(?:;[0-9;]*)?m/;
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[\x40-\x7e]/g, '');

export async function openDashboard(world: ClaudeWorld): Promise<DashboardPane> {
  const pane = (
    await world.tmux([
      'new-window', '-d', '-P', '-F', '#{pane_id}', '-t', '=keeper:', '-c', world.work,
      '-e', `TMUX_FLEET_SOCKET=${world.socket}`,
      process.execPath, FLEET_BIN, 'dashboard',
    ])
  ).trim();
  const panes = async () => (await world.tmux(['list-panes', '-a', '-F', '#{pane_id}'])).split('\n');
  const capture = (escapes: boolean) => world.tmux(['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', pane]);
  const d: DashboardPane = {
    pane,
    screen: () => capture(false),
    async select(line) {
      await waitFor(
        async () => {
          const lines = (await capture(true)).split('\n');
          const want = lines.findIndex((l) => line.test(plain(l)));
          const at = lines.findIndex((l) => REVERSE.test(l));
          if (want < 0 || at < 0) return false;
          if (want === at) return true;
          // Rows may reorder between two draws: move, then look again.
          await world.tmux(['send-keys', '-t', pane, '-l', (want > at ? 'j' : 'k').repeat(Math.abs(want - at))]);
          return false;
        },
        `the dashboard's selection on ${line}`,
        60_000,
        400,
      ).catch(async (err: unknown) => {
        throw new Error(`${String(err)}\nscreen:\n${await capture(false)}`);
      });
    },
    async press(...keys) {
      for (const k of keys) await world.tmux(['send-keys', '-t', pane, k]);
    },
    gone: async () => !(await panes()).includes(pane),
    async quit() {
      if (!(await d.gone())) await d.press('q');
      await waitFor(() => d.gone(), 'the dashboard closed', 20_000, 200);
    },
  };
  await waitFor(async () => /TASK\s+SESSION/.test(await d.screen()), 'the dashboard drawn', 30_000, 250);
  return d;
}

/** The argv of a running process (empty when it is gone). */
export function cmdlineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  } catch {
    return [];
  }
}
