// The real Codex CLI 0.171.0, offline in a private tmux server with a
// throw-away HOME: the hook and its trust, the stamp at the first prompt, the
// judge, takeover, /clear, the proof without a hook, and its daemon mode
// (docs/ownership.md#codex-cli). The scenarios run in order in one world.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { seconds, tierTimings } from '../helpers/tier';
import { checkLaunchPrompts } from '../helpers/launch-prompts';
import { turnScenarios } from './turns';
import { sendReachesModel, sendRefusedWhileWaiting } from '../helpers/send-real';
import { pidExists } from '../../src/proc';
import { sleep } from '../helpers/env';
import { recordOptionWrites, type OptionWrites } from '../helpers/option-writes';
import { cmdline as cmdlineOf, codexHooksList, codexLocksOf, makeAgentWorld, until, type AgentWorld } from './world';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

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

const OTHER = '0f0f0f0f-1111-4222-8333-444444444444';
const VERSION = '0.171.0';

describe(`Codex CLI ${VERSION}`, () => {
  let world: AgentWorld;
  let closed = false;
  const timing = tierTimings(`codex ${VERSION}`);
  const timed = timing.timed;

  // Task tc's Driver, kept across scenarios.
  let driver = { session: '', sid: '', pid: 0 };
  /** Every value @fleet-owner is set to, once the supervisor runs (the plugin is loaded). */
  let writes: OptionWrites;
  /** A session's owner segment as written, markup dropped, empty values and repeats left out. */
  const shown = async (session: string) => {
    const texts = (await writes.values(session)).map((v) => v.replace(/#\[[^\]]*\]/g, '').trim()).filter(Boolean);
    return texts.filter((t, i) => t !== texts[i - 1]);
  };

  beforeAll(async () => {
    timing.start();
    world = await makeAgentWorld('codex');
  });
  afterAll(async () => {
    if (!closed) await world?.close();
    timing.print();
  });

  timed('hook: hooks install adds it to hooks.json and records the trust Codex asks for; Codex itself reports it trusted', async () => {
    const r = await world.fleet(['hooks', 'install']);
    expect(r.exitCode, r.stderr).toBe(0);
    // Claude Code always, and Codex because ~/.codex exists; no note of the daemon (it is off here).
    expect(r.stdout).toMatch(/^claude: /m);
    expect(r.stdout).toMatch(/^codex: added the SessionStart hook .*hooks\.json.*; recorded its trust in .*config\.toml/m);
    expect(r.stdout).not.toMatch(/daemon/);
    const hooksFile = join(world.home, '.codex', 'hooks.json');
    const listed = await codexHooksList(world);
    const ours = listed.find((h) => h.key === `${hooksFile}:session_start:0:0`);
    expect(ours).toMatchObject({ trustStatus: 'trusted' });
    expect(await readFile(join(world.home, '.codex', 'config.toml'), 'utf8')).toContain(`trusted_hash = "${ours?.currentHash}"`);
    // The state hooks too, one per event that tells Codex's state, each trusted as Codex itself reports it.
    const state = listed.filter((h) => / event --agent codex$/.test(h.command));
    expect(state.map((h) => h.key.split(':').slice(-3, -2)[0]).sort()).toEqual(['interrupt', 'permission_request', 'post_tool_use', 'pre_tool_use', 'session_end', 'stop', 'user_prompt_submit']);
    for (const h of state) expect(h, h.key).toMatchObject({ trustStatus: 'trusted' });
  });

  timed('stamp: Codex starts with no review screen and holds its thread lock before any prompt; the hook stamps at the first prompt', async () => {
    const started = Date.now();
    driver.session = await world.spawn('tc');
    driver.pid = await until(() => world.agentPid(driver.session), 'the native codex process', 60_000, 200);
    const lock = await until(() => codexLocksOf(driver.pid)[0], 'the thread lock', 60_000, 200);
    timing.note(`spawn to thread lock: ${seconds(Date.now() - started)}`);
    await until(async () => (await world.screen(driver.session)).includes('›'), 'the prompt', 60_000, 250);
    expect(await world.screen(driver.session)).not.toMatch(/review/i);
    // No prompt yet: SessionStart has not fired, and nothing else stamps (no supervisor in this world yet).
    await sleep(1000);
    expect(await world.stamp(driver.session)).toBe('');
    const typed = Date.now();
    await world.typeLine(driver.session, 'hello from the tier');
    driver.sid = await until(() => world.stamp(driver.session), 'the stamp of the first prompt', 60_000, 200);
    timing.note(`first prompt to stamp: ${seconds(Date.now() - typed)}`);
    expect(driver.sid).toBe(lock);
    const recorded = (await world.option(driver.session, '@fleet-stamp-agent')).split(' ');
    expect(recorded.slice(0, 2)).toEqual(['codex', String(driver.pid)]);
    const task = await until(async () => {
      const t = await world.readTask('tc');
      return t.driverSid === driver.sid ? t : null;
    }, 'task tc filled', 20_000, 200);
    expect(task).toMatchObject({ driverAgent: 'codex', driverPid: driver.pid });
    expect(task.spawnNonce).toBeUndefined();
  });

  timed('judge: owner 0 for the Driver, 9 other <sid> live for anyone else; takeover refused while it runs', async () => {
    const self = await world.fleet(['owner', 'tc', '--as', driver.sid]);
    expect(self.stdout).toMatch(/^0 owner/);
    expect(self.exitCode).toBe(0);
    const other = await world.fleet(['owner', 'tc', '--as', OTHER, '--json']);
    expect(other.exitCode).toBe(9);
    expect(JSON.parse(other.stdout)).toMatchObject({ verdict: 9, owner: driver.sid, liveness: 'live', agent: 'codex' });
    const refused = await world.fleet(['takeover', 'tc', '--as', OTHER]);
    expect(refused.exitCode).toBe(9);
    expect((await world.readTask('tc')).driverSid).toBe(driver.sid);
  });

  timed('/clear: a new session id of the same process; the hook hands the task over at the next prompt (reason clear)', async () => {
    const before = driver.sid;
    // The first prompt's turn still retries offline, and Codex refuses /clear while a task runs: Escape ends it first.
    // Typed at once after Escape, the keys would read as one escape sequence: wait for the turn to end.
    await until(async () => {
      if (!(await world.screen(driver.session)).includes('esc to interrupt')) return true;
      await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'Escape']);
      await sleep(500);
      return false;
    }, 'the first turn interrupted', 30_000, 200);
    await world.typeLine(driver.session, '/clear');
    // The new thread's lock at once; the old one stays held until exit.
    const locks = await until(() => (codexLocksOf(driver.pid).length >= 2 ? codexLocksOf(driver.pid) : null), 'a second thread lock', 30_000, 200);
    expect(locks).toContain(before);
    await world.typeLine(driver.session, 'after the clear');
    const after = await until(async () => {
      const s = await world.stamp(driver.session);
      return s !== before ? s : '';
    }, 'the stamp after /clear', 60_000, 200);
    expect(locks).toContain(after);
    const task = await until(async () => {
      const t = await world.readTask('tc');
      return t.driverSid === after ? t : null;
    }, 'the task to follow /clear', 20_000, 200);
    expect(task.handovers.at(-1)).toMatchObject({ from: before, to: after, reason: 'clear' });
    expect((await world.fleet(['owner', 'tc', '--as', after])).stdout).toMatch(/^0 owner/);
    driver.sid = after;
  });

  timed('supervisor: loaded as a user loads it (the plugin)', async () => {
    await world.loadPlugin();
    await until(async () => ((await world.option(driver.session, '@fleet-owner')).includes('owner tc') ? true : null), '@fleet-owner of the Driver', 20_000);
  });

  turnScenarios(timed, timing.note, () => world, () => ({ slug: 'tc', session: driver.session }), { agent: 'codex', approve: ['y'], waitSentence: 'approve Bash: ls -la /' });

  timed('send: a multi-line prompt reaches the model as one message (a bracketed paste, then Enter); refused while Codex waits for an approval, which stays pending', async () => {
    await until(async () => !(await world.screen(driver.session)).includes('esc to interrupt'), 'Codex idle', 60_000, 250);
    const took = await sendReachesModel(world, 'tc');
    timing.note(`send: a 3-line prompt at the model ${took.toFixed(1)} s after send`);
    await until(async () => !(await world.screen(driver.session)).includes('esc to interrupt'), 'Codex idle after the sent prompt', 60_000, 250);
    const asked = await world.fleet(['send', 'tc', 'please list the root']);
    expect(asked.exitCode, asked.stderr).toBe(0);
    const title = () => world.tmux(['display-message', '-p', '-t', `=${driver.session}:`, '#{pane_title}']);
    const refused = await sendRefusedWhileWaiting(world, 'tc', async () => /Action Required/.test(await title()) && (await world.screen(driver.session)).includes('Would you like to run the following command?'));
    expect(refused.stderr).toMatch(/the Driver of tc: it waits/);
    timing.note(`send: refused with: ${refused.stderr.trim()}`);
    timing.note(`send: the title while Codex waits: ${JSON.stringify((await title()).trim())}`);
    // y: approved, as it would have been.
    await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'y']);
    await until(async () => !(await world.screen(driver.session)).includes('Would you like to run the following command?'), 'the approval answered', 30_000, 250);
  });

  timed('without a hook: the supervisor proves Codex by the thread lock its process holds, no prompt typed; /clear followed', async () => {
    writes = await recordOptionWrites(world.tmux, '@fleet-owner');
    const un = await world.fleet(['hooks', 'uninstall', '--agent', 'codex']);
    expect(un.exitCode, un.stderr).toBe(0);
    expect(un.stdout).toMatch(/removed its trust from/);
    const started = Date.now();
    const session = await world.spawn('tn');
    const pid = await until(() => world.agentPid(session), 'the native codex process', 60_000, 200);
    const sid = await until(() => world.stamp(session), 'the stamp by the thread lock', 60_000, 200);
    timing.note(`hookless spawn to stamp: ${seconds(Date.now() - started)}`);
    expect(codexLocksOf(pid)).toEqual([sid]);
    expect((await world.option(session, '@fleet-stamp-agent')).split(' ').slice(0, 2)).toEqual(['codex', String(pid)]);
    await until(async () => (await world.readTask('tn')).driverSid === sid, 'task tn filled', 20_000, 200);
    expect((await world.fleet(['owner', 'tn', '--as', sid])).exitCode).toBe(0);
    const status = await until(async () => {
      const v = await world.option(session, '@fleet-owner');
      return v.includes('owner tn') ? v : '';
    }, '@fleet-owner', 20_000);
    expect(status).toContain('● owner tn');
    // Every value the segment was set to, from the spawn on: pending through the boot window, never cannot tell.
    expect(await shown(session)).toEqual(['◌ tn pending', '● owner tn']);
    // No prompt yet: its title is its directory alone, which tells nothing; the segment names the agent.
    expect(await until(async () => ((await world.option(session, '@fleet-agent')).includes('· codex') ? 'yes' : ''), '@fleet-agent', 20_000)).toBe('yes');

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
  });

  timed('launch prompt: a prompt starting with - reaches the model as text, never as options', async () => {
    const took = await checkLaunchPrompts({ ...world, spawnArgs: (slug) => ['spawn', slug, '--cmd', world.binary, '--cwd', world.work] });
    timing.note(`launch prompts at the model: ${took.map((t) => `${t.toFixed(1)} s`).join(', ')}`);
  });

  timed('boot window with the hook and the supervisor: pending from the spawn on, then owner; never cannot tell', async () => {
    const r = await world.fleet(['hooks', 'install', '--agent', 'codex']);
    expect(r.exitCode, r.stderr).toBe(0);
    const started = Date.now();
    const session = await world.spawn('tb');
    await until(async () => ((await world.option(session, '@fleet-owner')).includes('owner tb') ? 'yes' : ''), 'owner tb', 60_000, 200);
    timing.note(`spawn to owner (hook installed, no prompt typed): ${seconds(Date.now() - started)}`);
    expect(await shown(session)).toEqual(['◌ tb pending', '● owner tb']);
  });

  timed('done: asked to exit its own way (Ctrl-C twice), Codex exits and its session closes; the task is archived', async () => {
    const session = await world.spawn('tq');
    const pid = await until(() => world.agentPid(session), 'the native codex process', 60_000, 200);
    const sid = await until(() => world.stamp(session), 'the stamp by the thread lock', 60_000, 200);
    await until(async () => (await world.readTask('tq')).driverSid === sid, 'task tq filled', 20_000, 200);
    await until(async () => (await world.screen(session)).includes('›'), 'the prompt', 60_000, 250);
    const r = await world.fleet(['done', 'tq', '--yes', '--force']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/tq: Driver asked to exit \(Ctrl-C twice\): it exited in ([\d.]+) s; session op-tq closed/);
    timing.note(`done: ${r.stdout.split('\n').find((l) => l.includes('it exited in'))}`);
    expect(pidExists(pid)).toBe(false);
    expect((await world.readTask('tq')).archivedAt).toMatch(/^\d{4}-/);
  });

  timed("exit: the Driver's process exits while its pane stays open: gone, takeover allowed without --force", async () => {
    await world.tmux(['set-option', '-t', `=${driver.session}:`, 'remain-on-exit', 'on']);
    process.kill(driver.pid, 'SIGKILL');
    const other = await until(async () => {
      const r = await world.fleet(['owner', 'tc', '--as', OTHER]);
      return / gone/.test(r.stdout) ? r : null;
    }, 'owner to read the Driver gone', 30_000, 250);
    expect(other.stdout).toMatch(new RegExp(`^9 other ${driver.sid} gone`));
    // The pane is still there, and still carries the stamp.
    expect(await world.stamp(driver.session)).toBe(driver.sid);
    const takeover = await world.fleet(['takeover', 'tc', '--as', OTHER]);
    expect(takeover.exitCode, takeover.stderr).toBe(0);
    expect((await world.readTask('tc')).driverSid).toBe(OTHER);
  });

  timed(
    "restore: a Driver that had a turn, /clear and a second turn; the server killed with every agent process: restore brings it back in a new session of its name, in its conversation after /clear (codex resume <id>); owner 0, one session",
    async () => {
      const session = await world.spawn('tr');
      await until(async () => (await world.screen(session)).includes('›'), 'the prompt', 60_000, 250);
      await world.typeLine(session, 'restore one: the turn before the clear');
      await until(() => world.model.traffic.some((t) => t.promptText?.includes('restore one')), 'the first turn at the model', 60_000, 200);
      const first = await until(async () => {
        const t = await world.readTask('tr');
        return t.driverSid || '';
      }, 'task tr filled', 60_000, 200);
      await until(async () => !(await world.screen(session)).includes('esc to interrupt'), 'the first turn done', 60_000, 200);
      const pidBefore = world.agentPid(session);
      await world.typeLine(session, '/clear');
      // The new thread's lock at once: the clear is done.
      await until(() => (codexLocksOf(pidBefore).length >= 2 ? 'yes' : ''), 'a second thread lock', 30_000, 200);
      await world.typeLine(session, 'restore two: the turn after the clear');
      await until(() => world.model.traffic.some((t) => t.promptText?.includes('restore two')), 'the second turn at the model', 60_000, 200);
      const cleared = await until(async () => {
        const t = await world.readTask('tr');
        return t.driverSid !== first && t.handovers?.at(-1)?.reason === 'clear' ? t.driverSid : '';
      }, 'task tr to follow /clear', 60_000, 200);
      const rollout = () => codexRollout(world.home, cleared);
      await until(() => (readFileSafe(rollout()).includes('restore two') ? 'yes' : ''), "the second turn's prompt in the rollout after /clear", 60_000, 250);
      const oldPid = world.agentPid(session);

      await world.restartServer();
      // The new server records the owner segment's writes as the old one did (the daemon-mode scenario reads them).
      writes = await recordOptionWrites(world.tmux, '@fleet-owner');
      await world.loadPlugin();
      const started = Date.now();
      const r = await world.fleet(['restore', 'tr']);
      timing.note(`restore: output:\n${r.stdout.trimEnd()}`);
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(`restored tr: resumed conversation ${cleared} in a new tmux session op-tr`);
      const pid = await until(() => world.agentPid('op-tr'), 'the restored codex process', 60_000, 200);
      expect(pid).not.toBe(oldPid);
      expect(cmdlineOf(pid).slice(1)).toEqual(['resume', cleared]);
      // Stamped by the supervisor from the thread lock the resumed Codex holds: the id it resumed.
      const stamp = await until(() => world.stamp('op-tr'), 'the stamp of the restored Driver', 60_000, 200);
      timing.note(`restore: restore to the Driver's stamp ${seconds(Date.now() - started)}; its session id after resume ${stamp === cleared ? 'kept' : `new (${stamp})`}`);
      expect(stamp).toBe(cleared);
      await until(async () => (await world.readTask('tr')).driverSid === cleared, 'task tr filled by the restored Driver', 30_000, 200);
      expect((await world.readTask('tr')).handovers.at(-1)).toMatchObject({ from: cleared, to: cleared, reason: 'resume', pane: 'op-tr' });
      const owner = await world.fleet(['owner', 'tr', '--as', cleared]);
      expect(owner.stdout).toMatch(/^0 owner/);
      expect(owner.exitCode).toBe(0);
      // Its conversation is the one after /clear.
      await until(async () => (await world.screen('op-tr')).includes('restore two'), "the second turn on the restored Driver's screen", 60_000, 250);
      expect(await world.screen('op-tr')).not.toContain('restore one');
      const names = (await world.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n');
      expect(names.filter((n) => n === 'op-tr')).toEqual(['op-tr']);
    },
  );

  timed("daemon mode: Codex's app-server daemon holds every thread: the status line says cannot tell, doctor says why and how to fix it", async () => {
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
    // It stays so: no pane can be proven in that mode, and nothing stamps it.
    await sleep(3000);
    expect(await world.option(session, '@fleet-owner')).toContain('? td cannot tell');
    expect(await world.stamp(session)).toBe('');
    // Pending through its boot window, cannot tell only once the proof is known to be impossible (the daemon holds the threads).
    expect(await shown(session)).toEqual(['◌ td pending', '? td cannot tell']);
  });

  timed('close: no process of the HOME is left (daemon stopped, server killed)', async () => {
    closed = true;
    const home = world.home;
    await world.close();
    const { processesWithHome } = await import('../claude/world');
    expect(processesWithHome(home)).toEqual([]);
  });
});
