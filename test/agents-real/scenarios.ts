// The scenarios of a real Codex CLI or Gemini CLI Driver, in order in one
// world (docs/ownership.md#codex-cli, docs/ownership.md#gemini-cli): one list
// for both agents, as the Claude Code tier's are shared
// (test/claude/scenarios.ts). What is each agent's own (how it stamps, what
// its screen shows, how it resumes, Codex's daemon) is an option of AgentTier.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { pidExists } from '../../src/proc';
import { checkLaunchPrompts } from '../helpers/launch-prompts';
import { recordOptionWrites, type OptionWrites } from '../helpers/option-writes';
import { sendReachesModel, sendRefusedWhileWaiting } from '../helpers/send-real';
import { seconds, tierTimings, type TierTimings } from '../helpers/tier';
import { processesWithHome } from '../claude/world';
import { turnScenarios, type TurnOptions } from './turns';
import { cmdline, makeAgentWorld, until, type AgentWorld, type OtherAgent } from './world';

/** Another session id: never the Driver. */
export const OTHER = '0f0f0f0f-1111-4222-8333-444444444444';

/** The Driver of the task the scenarios share, kept across them. */
export interface Driver {
  session: string;
  sid: string;
  pid: number;
}

/** What a scenario of one agent's file is handed. */
export interface TierContext {
  world(): AgentWorld;
  driver(): Driver;
  timed: TierTimings['timed'];
  note: TierTimings['note'];
  /** A session's owner segment as written since the hookless scenario, markup dropped, empty values and repeats left out. */
  shown(session: string): Promise<string[]>;
}

export interface AgentTier {
  agent: OtherAgent;
  /** The agent's short name in titles: Codex, Gemini. */
  name: string;
  version: string;
  /** The slug of the Driver's task. */
  slug: string;
  /** The screen shows the agent's prompt, ready for a line. */
  prompt(screen: string): boolean;
  /** The screen shows no turn running. */
  idle(screen: string): boolean;
  /** What the screen asks while a tool call waits for an approval. */
  approvalQuestion: string;
  turns: Omit<TurnOptions, 'agent'>;
  /** Scenarios before the stamp (Codex: the hook and its trust). */
  first?(ctx: TierContext): void;
  stamp: {
    title: string;
    /** Spawns the Driver of `slug` and returns it stamped; `after`: the stamp came no sooner (epoch ms). */
    run(ctx: TierContext): Promise<Driver & { after?: number }>;
  };
  clear: {
    title: string;
    /** Before /clear is typed. */
    ready(world: AgentWorld, driver: Driver): Promise<void>;
    /** After it, before the new stamp is waited for (Codex: a prompt, which fires its hook). */
    then?(world: AgentWorld, driver: Driver, before: string): Promise<void>;
    /** The new stamp's own checks. */
    check?(driver: Driver, before: string, after: string): void;
  };
  hookless: {
    title: string;
    spawnArgs?: string[];
    /** What `hooks uninstall --agent <agent>` printed. */
    uninstalled?(stdout: string): void;
    /** How the proof found it (a thread lock, an argv). */
    proven(session: string, sid: string, pid: number): void;
    /** After the owner segment: the agent segment, a hookless /clear. */
    then(ctx: TierContext, session: string, sid: string): Promise<void>;
  };
  restore: {
    /** How the agent resumes a conversation, for the title. */
    how: string;
    /** The arguments of the resumed agent's command line that name the conversation. */
    resumeArgs(sid: string): string[];
    /** After /clear is typed: it is done (Codex: a second thread lock; Gemini: the task follows it). */
    cleared(world: AgentWorld, pid: number, first: string): Promise<void>;
    /** The agent's own record of a conversation (Codex's rollout, Gemini's chat file), '' when none. */
    conversation(home: string, sid: string): string;
  };
  /** Scenarios after restore, before the close (Codex: its daemon mode). */
  more?(ctx: TierContext): void;
}

export function agentTier(t: AgentTier): void {
  describe(`${t.name} CLI ${t.version}`, () => {
    let world: AgentWorld;
    let closed = false;
    const timing = tierTimings(`${t.agent} ${t.version}`);
    const { timed, note } = timing;
    let driver: Driver = { session: '', sid: '', pid: 0 };
    let writes: OptionWrites;
    const ctx: TierContext = {
      world: () => world,
      driver: () => driver,
      timed,
      note,
      async shown(session) {
        const texts = (await writes.values(session)).map((v) => v.replace(/#\[[^\]]*\]/g, '').trim()).filter(Boolean);
        return texts.filter((text, i) => text !== texts[i - 1]);
      },
    };
    const screenUntil = (session: string, test: (screen: string) => boolean, what: string) => until(async () => test(await world.screen(session)), what, 60_000, 250);
    const taskUntil = (slug: string, test: (task: Record<string, any>) => boolean, what: string, ms = 20_000) =>
      until(async () => {
        const task = await world.readTask(slug);
        return test(task) ? task : null;
      }, what, ms, 200);

    beforeAll(async () => {
      timing.start();
      world = await makeAgentWorld(t.agent);
    });
    afterAll(async () => {
      if (!closed) await world?.close();
      timing.print();
    });

    t.first?.(ctx);

    timed(t.stamp.title, async () => {
      const stamped = await t.stamp.run(ctx);
      driver = { session: stamped.session, sid: stamped.sid, pid: stamped.pid };
      expect((await world.option(driver.session, '@fleet-stamp-agent')).split(' ').slice(0, 2)).toEqual([t.agent, String(driver.pid)]);
      const task = await taskUntil(t.slug, (x) => x.driverSid === driver.sid, `task ${t.slug} filled`);
      expect(task).toMatchObject({ driverAgent: t.agent, driverPid: driver.pid });
      expect(task.spawnNonce).toBeUndefined();
      // Filled by the stamp, which came no sooner than the agent fires its hook (no supervisor runs yet).
      if (stamped.after !== undefined) expect(Date.parse(task.updatedAt)).toBeGreaterThanOrEqual(stamped.after);
    });

    timed('judge: owner 0 for the Driver, 9 other <sid> live for anyone else; takeover refused while it runs', async () => {
      const self = await world.fleet(['owner', t.slug, '--as', driver.sid]);
      expect(self.stdout).toMatch(/^0 owner/);
      expect(self.exitCode).toBe(0);
      const other = await world.fleet(['owner', t.slug, '--as', OTHER, '--json']);
      expect(other.exitCode).toBe(9);
      expect(JSON.parse(other.stdout)).toMatchObject({ verdict: 9, owner: driver.sid, liveness: 'live', agent: t.agent });
      const refused = await world.fleet(['takeover', t.slug, '--as', OTHER]);
      expect(refused.exitCode).toBe(9);
      expect((await world.readTask(t.slug)).driverSid).toBe(driver.sid);
    });

    timed(t.clear.title, async () => {
      const before = driver.sid;
      await t.clear.ready(world, driver);
      await world.typeLine(driver.session, '/clear');
      await t.clear.then?.(world, driver, before);
      const after = await until(async () => {
        const s = await world.stamp(driver.session);
        return s !== before ? s : '';
      }, 'the stamp after /clear', 60_000, 200);
      t.clear.check?.(driver, before, after);
      const task = await taskUntil(t.slug, (x) => x.driverSid === after, 'the task to follow /clear');
      expect(task.handovers.at(-1)).toMatchObject({ from: before, to: after, reason: 'clear' });
      expect(task.driverPid).toBe(driver.pid);
      expect((await world.fleet(['owner', t.slug, '--as', after])).stdout).toMatch(/^0 owner/);
      driver.sid = after;
    });

    timed('supervisor: loaded as a user loads it (the plugin)', async () => {
      await world.loadPlugin();
      await until(async () => ((await world.option(driver.session, '@fleet-owner')).includes(`owner ${t.slug}`) ? true : null), '@fleet-owner of the Driver', 20_000);
    });

    turnScenarios(timed, note, () => world, () => ({ slug: t.slug, session: driver.session }), { agent: t.agent, ...t.turns });

    timed(`send: a multi-line prompt reaches the model as one message (a bracketed paste, then Enter); refused while ${t.name} waits for an approval, which stays pending`, async () => {
      await screenUntil(driver.session, t.idle, `${t.name} idle`);
      const took = await sendReachesModel(world, t.slug);
      note(`send: a 3-line prompt at the model ${took.toFixed(1)} s after send`);
      await screenUntil(driver.session, t.idle, `${t.name} idle after the sent prompt`);
      const asked = await world.fleet(['send', t.slug, 'please list the root']);
      expect(asked.exitCode, asked.stderr).toBe(0);
      const title = () => world.tmux(['display-message', '-p', '-t', `=${driver.session}:`, '#{pane_title}']);
      const refused = await sendRefusedWhileWaiting(world, t.slug, async () => /Action Required/.test(await title()) && (await world.screen(driver.session)).includes(t.approvalQuestion));
      expect(refused.stderr).toMatch(new RegExp(`the Driver of ${t.slug}: it waits`));
      note(`send: refused with: ${refused.stderr.trim()}`);
      note(`send: the title while ${t.name} waits: ${JSON.stringify((await title()).trim())}`);
      // Approved, as it would have been.
      for (const key of t.turns.approve) await world.tmux(['send-keys', '-t', `=${driver.session}:`, key]);
      await screenUntil(driver.session, (s) => !s.includes(t.approvalQuestion), 'the approval answered');
    });

    timed(t.hookless.title, async () => {
      writes = await recordOptionWrites(world.tmux, '@fleet-owner');
      const un = await world.fleet(['hooks', 'uninstall', '--agent', t.agent]);
      expect(un.exitCode, un.stderr).toBe(0);
      t.hookless.uninstalled?.(un.stdout);
      const started = Date.now();
      const session = await world.spawn('tn', t.hookless.spawnArgs);
      const sid = await until(() => world.stamp(session), 'the stamp of the proof', 120_000, 200);
      note(`hookless spawn to stamp: ${seconds(Date.now() - started)}`);
      const pid = await until(() => world.agentPid(session), `the ${t.name} process`, 60_000, 200);
      t.hookless.proven(session, sid, pid);
      expect((await world.option(session, '@fleet-stamp-agent')).split(' ').slice(0, 2)).toEqual([t.agent, String(pid)]);
      await taskUntil('tn', (x) => x.driverSid === sid, 'task tn filled');
      expect((await world.fleet(['owner', 'tn', '--as', sid])).exitCode).toBe(0);
      const status = await until(async () => {
        const v = await world.option(session, '@fleet-owner');
        return v.includes('owner tn') ? v : '';
      }, '@fleet-owner', 20_000);
      expect(status).toContain('● owner tn');
      // Every value the segment was set to, from the spawn on: pending through the boot window, never cannot tell.
      expect(await ctx.shown(session)).toEqual(['◌ tn pending', '● owner tn']);
      await t.hookless.then(ctx, session, sid);
    });

    timed('launch prompt: a prompt starting with - reaches the model as text, never as options', async () => {
      const took = await checkLaunchPrompts({ ...world, spawnArgs: (slug) => ['spawn', slug, '--cmd', world.binary, '--cwd', world.work] });
      note(`launch prompts at the model: ${took.map((x) => `${x.toFixed(1)} s`).join(', ')}`);
    });

    timed('boot window with the hook and the supervisor: pending from the spawn on, then owner; never cannot tell', async () => {
      const r = await world.fleet(['hooks', 'install', '--agent', t.agent]);
      expect(r.exitCode, r.stderr).toBe(0);
      const started = Date.now();
      const session = await world.spawn('tb');
      await until(async () => ((await world.option(session, '@fleet-owner')).includes('owner tb') ? 'yes' : ''), 'owner tb', 120_000, 200);
      note(`spawn to owner (hook installed): ${seconds(Date.now() - started)}`);
      expect(await ctx.shown(session)).toEqual(['◌ tb pending', '● owner tb']);
    });

    timed(`done: asked to exit its own way (Ctrl-C twice), ${t.name} exits and its session closes; the task is archived`, async () => {
      const session = await world.spawn('tq');
      const sid = await until(() => world.stamp(session), 'the stamp of the Driver', 120_000, 200);
      const pid = await until(() => world.agentPid(session), `the ${t.name} process`, 60_000, 200);
      await taskUntil('tq', (x) => x.driverSid === sid, 'task tq filled');
      await screenUntil(session, t.prompt, 'the prompt');
      const r = await world.fleet(['done', 'tq', '--yes', '--force']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/tq: Driver asked to exit \(Ctrl-C twice\): it exited in ([\d.]+) s; session op-tq closed/);
      note(`done: ${r.stdout.split('\n').find((l) => l.includes('it exited in'))}`);
      expect(pidExists(pid)).toBe(false);
      expect((await world.readTask('tq')).archivedAt).toMatch(/^\d{4}-/);
    });

    timed("exit: the Driver's process exits while its pane stays open: gone, takeover allowed without --force", async () => {
      await world.tmux(['set-option', '-t', `=${driver.session}:`, 'remain-on-exit', 'on']);
      process.kill(driver.pid, 'SIGKILL');
      const other = await until(async () => {
        const r = await world.fleet(['owner', t.slug, '--as', OTHER]);
        return / gone/.test(r.stdout) ? r : null;
      }, 'owner to read the Driver gone', 30_000, 250);
      expect(other.stdout).toMatch(new RegExp(`^9 other ${driver.sid} gone`));
      // The pane is still there, and still carries the stamp.
      expect(await world.stamp(driver.session)).toBe(driver.sid);
      const takeover = await world.fleet(['takeover', t.slug, '--as', OTHER]);
      expect(takeover.exitCode, takeover.stderr).toBe(0);
      expect((await world.readTask(t.slug)).driverSid).toBe(OTHER);
    });

    timed(
      `restore: a Driver that had a turn, /clear and a second turn; the server killed with every agent process: restore brings it back in a new session of its name, in its conversation after /clear (${t.restore.how}); owner 0, one session`,
      async () => {
        // The hook follows a /clear (the proof without it cannot always: docs/ownership.md#gemini-cli).
        const hooks = await world.fleet(['hooks', 'install', '--agent', t.agent]);
        expect(hooks.exitCode, hooks.stderr).toBe(0);
        const session = await world.spawn('tr');
        await screenUntil(session, t.prompt, 'the prompt');
        await world.typeLine(session, 'restore one: the turn before the clear');
        await until(() => world.model.traffic.some((x) => x.promptText?.includes('restore one')), 'the first turn at the model', 60_000, 200);
        const first = (await taskUntil('tr', (x) => Boolean(x.driverSid), 'task tr filled', 60_000)).driverSid as string;
        await screenUntil(session, t.idle, 'the first turn done');
        const pidBefore = world.agentPid(session);
        await world.typeLine(session, '/clear');
        await t.restore.cleared(world, pidBefore, first);
        await world.typeLine(session, 'restore two: the turn after the clear');
        await until(() => world.model.traffic.some((x) => x.promptText?.includes('restore two')), 'the second turn at the model', 60_000, 200);
        const cleared = (await taskUntil('tr', (x) => x.driverSid !== first && x.handovers?.at(-1)?.reason === 'clear', 'task tr to follow /clear', 60_000)).driverSid as string;
        await until(() => (t.restore.conversation(world.home, cleared).includes('restore two') ? 'yes' : ''), "the second turn's prompt in the agent's record after /clear", 60_000, 250);
        const oldPid = world.agentPid(session);

        await world.restartServer();
        // The new server records the owner segment's writes as the old one did (a later scenario may read them).
        writes = await recordOptionWrites(world.tmux, '@fleet-owner');
        await world.loadPlugin();
        const started = Date.now();
        const r = await world.fleet(['restore', 'tr']);
        note(`restore: output:\n${r.stdout.trimEnd()}`);
        expect(r.exitCode, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toContain(`restored tr: resumed conversation ${cleared} in a new tmux session op-tr`);
        const pid = await until(() => world.agentPid('op-tr'), `the restored ${t.name} process`, 60_000, 200);
        expect(pid).not.toBe(oldPid);
        const resume = t.restore.resumeArgs(cleared);
        const argv = cmdline(pid);
        expect(argv.slice(argv.indexOf(resume[0] as string))).toEqual(resume);
        const stamp = await until(() => world.stamp('op-tr'), 'the stamp of the restored Driver', 120_000, 200);
        note(`restore: restore to the Driver's stamp ${seconds(Date.now() - started)}; its session id after resume ${stamp === cleared ? 'kept' : `new (${stamp})`}`);
        expect(stamp).toBe(cleared);
        await taskUntil('tr', (x) => x.driverSid === cleared, 'task tr filled by the restored Driver', 30_000);
        expect((await world.readTask('tr')).handovers.at(-1)).toMatchObject({ from: cleared, to: cleared, reason: 'resume', pane: 'op-tr' });
        const owner = await world.fleet(['owner', 'tr', '--as', cleared]);
        expect(owner.stdout).toMatch(/^0 owner/);
        expect(owner.exitCode).toBe(0);
        // Its conversation is the one after /clear.
        await screenUntil('op-tr', (s) => s.includes('restore two'), "the second turn on the restored Driver's screen");
        expect(await world.screen('op-tr')).not.toContain('restore one');
        const names = (await world.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n');
        expect(names.filter((n) => n === 'op-tr')).toEqual(['op-tr']);
      },
    );

    t.more?.(ctx);

    timed('close: no process of the HOME is left (agents, daemons, the server)', async () => {
      closed = true;
      const home = world.home;
      await world.close();
      expect(processesWithHome(home)).toEqual([]);
    });
  });
}
