// A pseudo-terminal whose bytes a test reads: `script` runs a command on a new
// pty and copies everything written to it (by the command, or by anyone who
// writes to its slave device) into a file.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './env';

export interface Pty {
  /** The terminal's device (/dev/pts/N). */
  path: string;
  /** Everything written to it so far, as bytes read as latin1 (one char per byte). */
  output(): string;
  kill(): void;
}

/** A pty running `command` (default: sleeps) through script(1); its transcript lives in `dir`. */
export async function openPty(dir: string, command = 'exec sleep 600'): Promise<Pty> {
  const file = join(dir, `pty-${Math.random().toString(36).slice(2)}.out`);
  const child: ChildProcess = spawn('script', ['-qf', '-c', `tty; ${command}`, file], { stdio: 'ignore', detached: true });
  const output = () => {
    try {
      return readFileSync(file, 'latin1');
    } catch {
      return '';
    }
  };
  const path = await waitFor(() => /\/dev\/pts\/\d+/.exec(output())?.[0] ?? '', 'the pty of script(1)', 10_000);
  return {
    path,
    output,
    kill() {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}
