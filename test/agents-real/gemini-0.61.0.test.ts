// The real Gemini CLI 0.61.0, offline in a private tmux server with a
// throw-away HOME: the hook (added to a settings.json with comments) stamps at start, the judge, takeover, /clear, the
// proof without a hook (--session-id and its chat file), and the Driver's exit
// (docs/ownership.md#gemini-cli). The scenarios run in order in one world.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { seconds, tierTimings } from '../helpers/tier';
import { checkLaunchPrompts } from '../helpers/launch-prompts';
import { turnScenarios } from './turns';
import { sendReachesModel, sendRefusedWhileWaiting } from '../helpers/send-real';
import { pidExists } from '../../src/proc';
import { cmdline, makeAgentWorld, until, type AgentWorld } from './world';
import { recordOptionWrites, type OptionWrites } from '../helpers/option-writes';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Every chat file of Gemini's (<home>/.gemini/tmp/<project>/chats) whose first line names this session id, joined. */
function geminiChat(home: string, sid: string): string {
  const tmp = join(home, '.gemini', 'tmp');
  if (!existsSync(tmp)) return '';
  const out: string[] = [];
  for (const project of readdirSync(tmp)) {
    const chats = join(tmp, project, 'chats');
    if (!existsSync(chats)) continue;
    for (const name of readdirSync(chats)) {
      if (!name.endsWith(`-${sid.slice(0, 8)}.jsonl`)) continue;
      try {
        const text = readFileSync(join(chats, name), 'utf8');
        if (text.includes(`"sessionId":"${sid}"`)) out.push(text);
      } catch {
        /* caught mid-write */
      }
    }
  }
  return out.join('\n');
}

const OTHER = '0f0f0f0f-1111-4222-8333-444444444444';
const VERSION = '0.61.0';

describe(`Gemini CLI ${VERSION}`, () => {
  let world: AgentWorld;
  let closed = false;
  const timing = tierTimings(`gemini ${VERSION}`);
  const timed = timing.timed;

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
    world = await makeAgentWorld('gemini');
  });
  afterAll(async () => {
    if (!closed) await world?.close();
    timing.print();
  });

  timed('stamp: hooks install adds the hook to a settings.json with comments; Gemini reads it, and the hook stamps at start, before any prompt, with the id spawn gave and the agent process', async () => {
    // Gemini takes comments in its settings.json (strip-json-comments, then JSON.parse): the hook is added among them.
    const settings = join(world.home, '.gemini', 'settings.json');
    await writeFile(
      settings,
      [
        '// The real tier: an API key (in the environment), no folder trust prompt.',
        '{',
        '  /* auth */',
        '  "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } } // offline',
        '}',
        '',
      ].join('\n'),
    );
    const r = await world.fleet(['hooks', 'install']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^gemini: added the SessionStart hook .*settings\.json/m);
    const edited = await readFile(settings, 'utf8');
    for (const comment of ['// The real tier', '/* auth */', '// offline']) expect(edited).toContain(comment);
    const started = Date.now();
    driver.session = await world.spawn('tg');
    driver.sid = await until(() => world.stamp(driver.session), 'the stamp of SessionStart', 120_000, 200);
    timing.note(`spawn to stamp: ${seconds(Date.now() - started)}`);
    // A Gemini that exits leaves its last screen: a failure says why.
    await world.tmux(['set-option', '-t', `=${driver.session}:`, 'remain-on-exit', 'on']);
    driver.pid = await until(() => world.agentPid(driver.session), "Gemini's relaunched child", 30_000, 200).catch(async (err: Error) => {
      throw new Error(`${err.message}; its pane shows:\n${await world.screen(driver.session).catch(() => '(no pane)')}`);
    });
    // The id spawn passed is the one Gemini runs under.
    const argv = cmdline(driver.pid);
    expect(argv[argv.indexOf('--session-id') + 1]).toBe(driver.sid);
    expect((await world.option(driver.session, '@fleet-stamp-agent')).split(' ').slice(0, 2)).toEqual(['gemini', String(driver.pid)]);
    const task = await until(async () => {
      const t = await world.readTask('tg');
      return t.driverSid === driver.sid ? t : null;
    }, 'task tg filled', 20_000, 200);
    expect(task).toMatchObject({ driverAgent: 'gemini', driverPid: driver.pid });
  });

  timed('judge: owner 0 for the Driver, 9 other <sid> live for anyone else; takeover refused while it runs', async () => {
    const self = await world.fleet(['owner', 'tg', '--as', driver.sid]);
    expect(self.stdout).toMatch(/^0 owner/);
    const other = await world.fleet(['owner', 'tg', '--as', OTHER, '--json']);
    expect(other.exitCode).toBe(9);
    expect(JSON.parse(other.stdout)).toMatchObject({ verdict: 9, owner: driver.sid, liveness: 'live', agent: 'gemini' });
    const refused = await world.fleet(['takeover', 'tg', '--as', OTHER]);
    expect(refused.exitCode).toBe(9);
    expect((await world.readTask('tg')).driverSid).toBe(driver.sid);
  });

  timed('/clear: a new session id of the same process; the hook hands the task over (reason clear)', async () => {
    const before = driver.sid;
    await until(async () => (await world.screen(driver.session)).includes('Type your message'), 'the prompt', 60_000, 250);
    await world.typeLine(driver.session, '/clear');
    const after = await until(async () => {
      const s = await world.stamp(driver.session);
      return s !== before ? s : '';
    }, 'the stamp after /clear', 60_000, 200);
    const task = await until(async () => {
      const t = await world.readTask('tg');
      return t.driverSid === after ? t : null;
    }, 'the task to follow /clear', 20_000, 200);
    expect(task.handovers.at(-1)).toMatchObject({ from: before, to: after, reason: 'clear' });
    expect(task.driverPid).toBe(driver.pid);
    driver.sid = after;
  });

  timed('supervisor: loaded as a user loads it (the plugin)', async () => {
    await world.loadPlugin();
    await until(async () => ((await world.option(driver.session, '@fleet-owner')).includes('owner tg') ? true : null), '@fleet-owner of the Driver', 20_000);
  });

  turnScenarios(timed, timing.note, () => world, () => ({ slug: 'tg', session: driver.session }), { agent: 'gemini', approve: ['Enter'], waitSentence: 'approve Shell: ls -la /' });

  timed('send: a multi-line prompt reaches the model as one message (a bracketed paste, then Enter); refused while Gemini waits for an approval, which stays pending', async () => {
    await until(async () => (await world.screen(driver.session)).includes('Type your message'), 'Gemini idle', 60_000, 250);
    const took = await sendReachesModel(world, 'tg');
    timing.note(`send: a 3-line prompt at the model ${took.toFixed(1)} s after send`);
    await until(async () => (await world.screen(driver.session)).includes('Type your message'), 'Gemini idle after the sent prompt', 60_000, 250);
    const asked = await world.fleet(['send', 'tg', 'please list the root']);
    expect(asked.exitCode, asked.stderr).toBe(0);
    const title = () => world.tmux(['display-message', '-p', '-t', `=${driver.session}:`, '#{pane_title}']);
    const refused = await sendRefusedWhileWaiting(world, 'tg', async () => /Action Required/.test(await title()) && (await world.screen(driver.session)).includes('Allow execution'));
    expect(refused.stderr).toMatch(/the Driver of tg: it waits/);
    timing.note(`send: refused with: ${refused.stderr.trim()}`);
    timing.note(`send: the title while Gemini waits: ${JSON.stringify((await title()).trim())}`);
    // Enter: allowed once, as it would have been.
    await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'Enter']);
    await until(async () => !(await world.screen(driver.session)).includes('Allow execution'), 'the approval answered', 30_000, 250);
  });

  timed('without a hook: the supervisor proves Gemini by its --session-id and the chat file of that id; the launch prompt goes as --prompt-interactive=<text>', async () => {
    writes = await recordOptionWrites(world.tmux, '@fleet-owner');
    const un = await world.fleet(['hooks', 'uninstall', '--agent', 'gemini']);
    expect(un.exitCode, un.stderr).toBe(0);
    const started = Date.now();
    const session = await world.spawn('tn', ['--prompt', 'hello from the tier']);
    const sid = await until(() => world.stamp(session), 'the stamp by --session-id', 120_000, 200);
    timing.note(`hookless spawn to stamp: ${seconds(Date.now() - started)}`);
    const pid = await until(() => world.agentPid(session), "Gemini's relaunched child", 30_000, 200);
    const argv = cmdline(pid);
    expect(argv[argv.indexOf('--session-id') + 1]).toBe(sid);
    expect(argv).toContain('--prompt-interactive=hello from the tier');
    await until(async () => (await world.readTask('tn')).driverSid === sid, 'task tn filled', 20_000, 200);
    expect((await world.fleet(['owner', 'tn', '--as', sid])).exitCode).toBe(0);
    const status = await until(async () => {
      const v = await world.option(session, '@fleet-owner');
      return v.includes('owner tn') ? v : '';
    }, '@fleet-owner', 20_000);
    expect(status).toContain('● owner tn');
    // Every value the segment was set to, from the spawn on: pending through the boot window, never cannot tell.
    expect(await shown(session)).toEqual(['◌ tn pending', '● owner tn']);
    // No hook: its state from its pane's title alone; the launch prompt's turn ends, and the title says Ready.
    expect(await until(async () => ((await world.option(session, '@fleet-agent')).includes('· idle') ? 'yes' : ''), '@fleet-agent idle, from the title', 60_000)).toBe('yes');
    expect(await world.tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_title}'])).toMatch(/Ready/);
  });

  timed('launch prompt: a prompt starting with - reaches the model as text, never as options', async () => {
    const took = await checkLaunchPrompts({ ...world, spawnArgs: (slug) => ['spawn', slug, '--cmd', world.binary, '--cwd', world.work] });
    timing.note(`launch prompts at the model: ${took.map((t) => `${t.toFixed(1)} s`).join(', ')}`);
  });

  timed('boot window with the hook and the supervisor: pending from the spawn on, then owner at SessionStart; never cannot tell', async () => {
    const r = await world.fleet(['hooks', 'install', '--agent', 'gemini']);
    expect(r.exitCode, r.stderr).toBe(0);
    const started = Date.now();
    const session = await world.spawn('tb');
    await until(async () => ((await world.option(session, '@fleet-owner')).includes('owner tb') ? 'yes' : ''), 'owner tb', 120_000, 200);
    timing.note(`spawn to owner (hook installed): ${seconds(Date.now() - started)}`);
    expect(await shown(session)).toEqual(['◌ tb pending', '● owner tb']);
  });

  timed('done: asked to exit its own way (Ctrl-C twice), Gemini exits and its session closes; the task is archived', async () => {
    const session = await world.spawn('tq');
    const sid = await until(() => world.stamp(session), 'the stamp by --session-id', 120_000, 200);
    const pid = await until(() => world.agentPid(session), "Gemini's relaunched child", 30_000, 200);
    await until(async () => (await world.readTask('tq')).driverSid === sid, 'task tq filled', 20_000, 200);
    await until(async () => (await world.screen(session)).includes('Type your message'), 'the prompt', 60_000, 250);
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
      const r = await world.fleet(['owner', 'tg', '--as', OTHER]);
      return / gone/.test(r.stdout) ? r : null;
    }, 'owner to read the Driver gone', 30_000, 250);
    expect(other.stdout).toMatch(new RegExp(`^9 other ${driver.sid} gone`));
    expect(await world.stamp(driver.session)).toBe(driver.sid);
    const takeover = await world.fleet(['takeover', 'tg', '--as', OTHER]);
    expect(takeover.exitCode, takeover.stderr).toBe(0);
  });

  timed(
    "restore: a Driver that had a turn, /clear and a second turn; the server killed with every agent process: restore brings it back in a new session of its name, in its conversation after /clear (--resume <id>); owner 0, one session",
    async () => {
      // The hook follows a Gemini /clear (the proof without it cannot: docs/ownership.md#gemini-cli).
      const hooks = await world.fleet(['hooks', 'install', '--agent', 'gemini']);
      expect(hooks.exitCode, hooks.stderr).toBe(0);
      const session = await world.spawn('tr');
      const first = await until(() => world.stamp(session), 'the stamp of SessionStart', 120_000, 200);
      await until(async () => (await world.screen(session)).includes('Type your message'), 'the prompt', 60_000, 250);
      await world.typeLine(session, 'restore one: the turn before the clear');
      await until(() => world.model.traffic.some((t) => t.promptText?.includes('restore one')), 'the first turn at the model', 60_000, 200);
      await until(async () => (await world.screen(session)).includes('Type your message'), 'the prompt after the first turn', 60_000, 250);
      await world.typeLine(session, '/clear');
      const cleared = await until(async () => {
        const t = await world.readTask('tr');
        return t.driverSid !== first && t.handovers?.at(-1)?.reason === 'clear' ? t.driverSid : '';
      }, 'task tr to follow /clear', 60_000, 200);
      await world.typeLine(session, 'restore two: the turn after the clear');
      await until(() => (geminiChat(world.home, cleared).includes('restore two') ? 'yes' : ''), "the second turn's prompt in the chat file after /clear", 60_000, 250);
      const oldPid = world.agentPid(session);

      await world.restartServer();
      await world.loadPlugin();
      const started = Date.now();
      const r = await world.fleet(['restore', 'tr']);
      timing.note(`restore: output:\n${r.stdout.trimEnd()}`);
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(`restored tr: resumed conversation ${cleared} in a new tmux session op-tr`);
      const pid = await until(() => world.agentPid('op-tr'), "the restored Gemini's relaunched child", 60_000, 200);
      expect(pid).not.toBe(oldPid);
      const argv = cmdline(pid);
      expect(argv.slice(argv.indexOf('--resume'))).toEqual(['--resume', cleared]);
      const stamp = await until(() => world.stamp('op-tr'), 'the stamp of the restored Driver', 120_000, 200);
      timing.note(`restore: restore to the Driver's stamp ${seconds(Date.now() - started)}; its session id after --resume ${stamp === cleared ? 'kept' : `new (${stamp})`}`);
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

  timed('close: no process of the HOME is left', async () => {
    closed = true;
    const home = world.home;
    await world.close();
    const { processesWithHome } = await import('../claude/world');
    expect(processesWithHome(home)).toEqual([]);
  });
});
