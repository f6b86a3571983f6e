// The real Codex CLI 0.171.0, offline in a private tmux server with a
// throw-away HOME (docs/ownership.md#codex-cli): the shared scenarios
// (./scenarios.ts) with what is Codex's own: the hook and the trust it asks
// for, the thread lock it holds before any prompt and its stamp at the first
// prompt, /clear bound at the next prompt, `codex resume <id>`, and its
// app-server daemon, which no pane can be tied to.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { seconds } from '../helpers/tier';
import { agentTier } from './scenarios';
import { codexHooksList, codexLocksOf, until } from './world';

/** Codex's rollout file of a session id (<home>/.codex/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl), or ''. */
function codexRollout(home: string, sid: string): string {
  const walk = (dir: string): string => {
    if (!existsSync(dir)) return '';
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        const found = walk(p);
        if (found) return found;
      } else if (name.endsWith(`-${sid}.jsonl`)) return p;
    }
    return '';
  };
  return walk(join(home, '.codex', 'sessions'));
}

function readFileSafe(file: string): string {
  try {
    return file ? readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
}

/** A turn runs: Codex says how to interrupt it. */
const turnRuns = (screen: string) => screen.includes('esc to interrupt');

agentTier({
  agent: 'codex',
  name: 'Codex',
  version: '0.171.0',
  slug: 'tc',
  prompt: (screen) => screen.includes('›'),
  idle: (screen) => !turnRuns(screen),
  approvalQuestion: 'Would you like to run the following command?',
  turns: { approve: ['y'], waitSentence: 'approve Bash: ls -la /' },

  first({ timed, world }) {
    timed('hook: hooks install adds it to hooks.json and records the trust Codex asks for; Codex itself reports it trusted', async () => {
      const r = await world().fleet(['hooks', 'install']);
      expect(r.exitCode, r.stderr).toBe(0);
      // Claude Code always, and Codex because ~/.codex exists; no note of the daemon (it is off here).
      expect(r.stdout).toMatch(/^claude: /m);
      expect(r.stdout).toMatch(/^codex: added the SessionStart hook .*hooks\.json.*; recorded its trust in .*config\.toml/m);
      expect(r.stdout).not.toMatch(/daemon/);
      const hooksFile = join(world().home, '.codex', 'hooks.json');
      const listed = await codexHooksList(world());
      const ours = listed.find((h) => h.key === `${hooksFile}:session_start:0:0`);
      expect(ours).toMatchObject({ trustStatus: 'trusted' });
      expect(await readFile(join(world().home, '.codex', 'config.toml'), 'utf8')).toContain(`trusted_hash = "${ours?.currentHash}"`);
      // The state hooks too, one per event that tells Codex's state, each trusted as Codex itself reports it.
      const state = listed.filter((h) => / event --agent codex$/.test(h.command));
      expect(state.map((h) => h.key.split(':').slice(-3, -2)[0]).sort()).toEqual(['interrupt', 'permission_request', 'post_tool_use', 'pre_tool_use', 'session_end', 'stop', 'user_prompt_submit']);
      for (const h of state) expect(h, h.key).toMatchObject({ trustStatus: 'trusted' });
    });
  },

  stamp: {
    title: 'stamp: Codex starts with no review screen and holds its thread lock before any prompt; the hook stamps at the first prompt',
    async run({ world: get, note }) {
      const world = get();
      const started = Date.now();
      const session = await world.spawn('tc');
      const pid = await until(() => world.agentPid(session), 'the native codex process', 60_000, 200);
      const lock = await until(() => codexLocksOf(pid)[0], 'the thread lock', 60_000, 200);
      note(`spawn to thread lock: ${seconds(Date.now() - started)}`);
      await until(async () => (await world.screen(session)).includes('›'), 'the prompt', 60_000, 250);
      expect(await world.screen(session)).not.toMatch(/review/i);
      // No prompt yet: SessionStart has not fired, and nothing else stamps (no supervisor in this world yet).
      expect(await world.stamp(session)).toBe('');
      const typed = Date.now();
      await world.typeLine(session, 'hello from the tier');
      const sid = await until(() => world.stamp(session), 'the stamp of the first prompt', 60_000, 200);
      note(`first prompt to stamp: ${seconds(Date.now() - typed)}`);
      expect(sid).toBe(lock);
      // The task is filled by that stamp: no sooner than the prompt was typed.
      return { session, sid, pid, after: typed };
    },
  },

  clear: {
    title: '/clear: a new session id of the same process; the hook hands the task over at the next prompt (reason clear)',
    async ready(world, driver) {
      // The first prompt's turn still retries offline, and Codex refuses /clear while a task runs: Escape ends it first.
      // Typed at once after Escape, the keys would read as one escape sequence: the turn's end is waited for.
      let escaped = 0;
      await until(async () => {
        if (!turnRuns(await world.screen(driver.session))) return true;
        if (Date.now() - escaped > 500) {
          await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'Escape']);
          escaped = Date.now();
        }
        return false;
      }, 'the first turn interrupted', 30_000, 200);
    },
    async then(world, driver, before) {
      // The new thread's lock at once; the old one stays held until exit. Its hook fires at the next prompt.
      const locks = await until(() => (codexLocksOf(driver.pid).length >= 2 ? codexLocksOf(driver.pid) : null), 'a second thread lock', 30_000, 200);
      expect(locks).toContain(before);
      await world.typeLine(driver.session, 'after the clear');
    },
    check(driver, _before, after) {
      expect(codexLocksOf(driver.pid)).toContain(after);
    },
  },

  hookless: {
    title: 'without a hook: the supervisor proves Codex by the thread lock its process holds, no prompt typed; /clear followed',
    uninstalled: (stdout) => expect(stdout).toMatch(/removed its trust from/),
    proven: (_session, sid, pid) => expect(codexLocksOf(pid)).toEqual([sid]),
    async then({ world: get }, session, sid) {
      const world = get();
      // No prompt yet: its title is its directory alone, which tells nothing; the segment names the agent.
      await world.optionUntil(session, '@fleet-agent', (v) => v.includes('· codex'), 20_000);
      await until(async () => (await world.screen(session)).includes('›'), 'the prompt', 60_000, 250);
      await world.typeLine(session, '/clear');
      const after = await until(async () => {
        const s = await world.stamp(session);
        return s !== sid ? s : '';
      }, 'the stamp after a hookless /clear', 60_000, 200);
      const task = await until(async () => {
        const t = await world.readTask('tn');
        return t.driverSid === after ? t : null;
      }, 'task tn to follow /clear', 20_000, 200);
      expect(task.handovers.at(-1)).toMatchObject({ from: sid, to: after, reason: 'clear' });
    },
  },

  restore: {
    how: 'codex resume <id>',
    resumeArgs: (sid) => ['resume', sid],
    async cleared(_world, pid) {
      // The new thread's lock at once: the clear is done (the task follows at the next prompt).
      await until(() => (codexLocksOf(pid).length >= 2 ? 'yes' : ''), 'a second thread lock', 30_000, 200);
    },
    conversation: (home, sid) => readFileSafe(codexRollout(home, sid)),
  },

  more({ timed, world: get, shown }) {
    timed("daemon mode: Codex's app-server daemon holds every thread: the status line says cannot tell, doctor says why and how to fix it", async () => {
      const world = get();
      const config = join(world.home, '.codex', 'config.toml');
      await writeFile(config, (await readFile(config, 'utf8')).replace('daemon_auto_start = false', 'daemon_auto_start = true'));
      const status = await world.fleet(['hooks', 'status', '--agent', 'codex']);
      expect(status.stdout).toMatch(/note: Codex starts its app-server daemon by default.*daemon_auto_start = false/);
      const session = await world.spawn('td');
      // Codex's TUI holds no thread lock, its daemon does: once that has lasted, doctor says why.
      const doctor = await until(async () => {
        const r = await world.fleet(['doctor', '--session', session]);
        return /✖ agent: cannot be proven for op-td/.test(r.stdout) ? r : null;
      }, 'doctor to say the agent cannot be proven', 90_000, 1000);
      expect(doctor.stdout).toMatch(/app-server daemon \(pid \d+\).*daemon_auto_start = false/);
      const owner = await until(async () => {
        const v = await world.option(session, '@fleet-owner');
        return v.includes('cannot tell') ? v : '';
      }, '@fleet-owner to say cannot tell', 30_000, 500);
      expect(owner).toContain('? td cannot tell');
      // It stays so: the supervisor looks at the session again (a window added changes it), and through
      // its ticks after that no pane is proven in that mode and nothing stamps it.
      await world.tmux(['new-window', '-d', '-t', `=${session}:`, 'sleep 600']);
      await world.ticks();
      expect(await world.option(session, '@fleet-owner')).toContain('? td cannot tell');
      expect(await world.stamp(session)).toBe('');
      // Pending through its boot window, cannot tell only once the proof is known to be impossible (the daemon holds the threads).
      expect(await shown(session)).toEqual(['◌ td pending', '? td cannot tell']);
    });
  },
});
