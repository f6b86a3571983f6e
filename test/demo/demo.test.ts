// `npm run demo` without a terminal: it prints what each demo session's status
// line shows on a really attached client, then leaves no server, no process
// and no temp dir behind. A random socket name keeps it off any real demo.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths';
import { removeSocketFile } from '../helpers/tmux-server';

const running = async (name: string) =>
  (await execa('tmux', ['-L', name, 'display-message', '-p', '#{pid}'], { reject: false, stdin: 'ignore' })).exitCode === 0;

describe('npm run demo without a terminal', () => {
  it('prints owner, pending, the hop and the waiting job, then cleans up, writing nothing to HOME', async () => {
    const socket = `fleet-test-demo-${randomBytes(6).toString('hex')}`;
    // A HOME of its own: the demo promises a throw-away home (no cache, no state, no ~/.claude).
    const home = await mkdtemp(join(tmpdir(), 'fleet-demo-home-'));
    const r = await execa(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], {
      cwd: ROOT,
      env: { ...process.env, HOME: home, XDG_CACHE_HOME: undefined, XDG_STATE_HOME: undefined, FLEET_DEMO_SOCKET: socket, TMUX: undefined, TMUX_PANE: undefined },
      extendEnv: false,
      stdin: 'ignore',
      reject: false,
      timeout: 90_000,
    });
    try {
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const out = r.stdout;
      const line = (session: string) => {
        const lines = out.split('\n');
        const i = lines.findIndex((l) => l.startsWith(`${session}:`));
        expect(i, `${session} in:\n${out}`).toBeGreaterThanOrEqual(0);
        return lines[i + 1] ?? '';
      };
      expect(line('op-fix-login')).toMatch(/\[op-fix-login\].*● owner fix-login/);
      expect(line('op-add-search')).toMatch(/\[op-add-search\].*◌ add-search pending/);
      const parked = line('op-migrate-db');
      expect(parked).toMatch(/● owner migrate-db/);
      expect(parked).toMatch(/↪ [0-9a-f]{4} → e9e4/);
      expect(parked).toContain('! approve Bash: npm run migrate');
      expect(line('review-fix-login')).toMatch(/▲ fix-login: owner op-fix-login \([0-9a-f]{8}\) live/);

      const tmp = /cleaned up: .*, (\S+)$/m.exec(out)?.[1];
      expect(tmp).toBeTruthy();
      expect(existsSync(tmp!)).toBe(false);
      expect(readdirSync(home)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
      expect(await running(socket)).toBe(false);
      expect(await running(`${socket}-view`)).toBe(false);
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false, stdin: 'ignore' });
      await execa('tmux', ['-L', `${socket}-view`, 'kill-server'], { reject: false, stdin: 'ignore' });
    }
  });

  it('refuses clearly when a server of that name already runs, and leaves it alone', async () => {
    const socket = `fleet-test-demo-${randomBytes(6).toString('hex')}`;
    await execa('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'mine', 'sleep 600'], { stdin: 'ignore' });
    try {
      const r = await execa(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], {
        cwd: ROOT,
        env: { ...process.env, FLEET_DEMO_SOCKET: socket, TMUX: undefined },
        extendEnv: false,
        stdin: 'ignore',
        reject: false,
        timeout: 30_000,
      });
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `tmux-fleet demo: a tmux server named ${socket} is already running (another demo?); end it with \`tmux -L ${socket} kill-server\` or run \`npm run demo -- --restart\``,
      ]);
      expect((await execa('tmux', ['-L', socket, 'has-session', '-t', '=mine'], { reject: false, stdin: 'ignore' })).exitCode).toBe(0);
    } finally {
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false, stdin: 'ignore' });
      await removeSocketFile(socket);
    }
  });
});
