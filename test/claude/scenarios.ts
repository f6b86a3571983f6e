// The scenarios of the real-agent tier, run against one Claude Code version in
// one world (docs/hop.md#what-claude-code-writes records what they showed).
// Turns are real: the agent talks to the world's scripted model server
// (TIER_SCRIPT), calls tools and asks for permissions. Each test leaves the
// world as the next one expects, so they run in order; the world is closed,
// and checked to leave no process, at the end.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../helpers/env';
import { continuedIn, transcriptHasConversation } from '../../src/registry/transcript';
import { optionDefault } from '../../src/options';
import { ROOT } from '../helpers/paths';
import { seconds, tierTimings } from '../helpers/tier';
import { checkLaunchPrompts } from '../helpers/launch-prompts';
import { sendReachesModel, sendRefusedWhileWaiting } from '../helpers/send-real';
import { cmdlineOf, openDashboard } from './dashboard';
import { captureJobState, captureRow, describeTraffic, livenessOf, makeClaudeWorld, processesWithHome, until, type ClaudeWorld, type Row, type WorldClient } from './world';

export interface VersionTraits {
  /**
   * The parked tab's row names its job (`parkedJobId`, with `pidDomain` and `tmux`): the
   * hop can be followed. 2.1.197 parks with Left too, but writes none of them: its job
   * is a job no row links to the tab.
   */
  parks: boolean;
  /**
   * /clear without the hook is followed. 2.1.332 rewrites its row's updatedAt on /clear;
   * 2.1.197 keeps the old updatedAt, and the supervisor follows it once the stamp has
   * settled (docs/ownership.md#the-stamp-without-the-hook).
   */
  hooklessClear: boolean;
  /**
   * Resume with the dashboard's `r` is tested. A resumed agent was seen to exit seconds
   * after its SessionStart offline (2.1.197 often, 2.1.332 once in five runs; its session
   * then closes), so the test asserts what tmux-fleet records, not that the process stays;
   * on 2.1.197 it exited before it stamped, so it is left out there.
   */
  resume: boolean;
}

const OTHER = '0f0f0f0f-1111-4222-8333-444444444444';
const short = (id: string) => id.slice(0, 4);

export function realAgentScenarios(version: string, traits: VersionTraits): void {
  describe(`Claude Code ${version}`, () => {
    let world: ClaudeWorld;
    let home = '';
    let closed = false;
    const timing = tierTimings(version);
    const timed = timing.timed;

    // Task a's Driver, kept across scenarios: spawned in a, cleared in c, killed last.
    let driver = { session: '', sid: '', row: {} as Row };
    // A client attached to the world's server (toasts, attention --jump), from the wait scenario on.
    let client: WorldClient | null = null;

    beforeAll(async () => {
      timing.start();
      world = await makeClaudeWorld(version);
      home = world.home;
    });

    afterAll(async () => {
      const traffic = world ? describeTraffic(world.model.traffic) : [];
      if (!closed) await world?.close();
      // The tier's timings and what the agent sent the model server, in its output (the closing note quotes them).
      timing.print();
      console.log(traffic.map((t, i) => `agents tier traffic: ${version} ${String(i + 1).padStart(3)} ${t}`).join('\n'));
    });

    timed('a, f: spawn: the real hook stamps; owner 0 for the Driver, 9 other <sid> live for anyone else; @fleet-owner green', async () => {
      driver = await world.spawn('ta');
      const self = await world.fleet(['owner', 'ta', '--as', driver.sid]);
      expect(self.stdout).toMatch(/^0 owner/);
      expect(self.exitCode).toBe(0);
      const other = await world.fleet(['owner', 'ta', '--as', OTHER]);
      expect(other.stdout).toMatch(new RegExp(`^9 other ${driver.sid} live`));
      expect(other.exitCode).toBe(9);
      // The status the Driver's own clients see: the owner state, in its style.
      const status = await until(async () => {
        const v = await world.option(driver.session, '@fleet-owner');
        return v.includes('owner ta') ? v : '';
      }, '@fleet-owner of the Driver', 20_000);
      expect(status).toContain('● owner ta');
      expect(status).toContain(`#[${optionDefault('@fleet-style-owner')}]`);
      expect(driver.row.procStart).toMatch(/^\d+$/);
      if (traits.parks) {
        // f: the row's own tmux field names the session and pane spawn made.
        const where = await world.tmux(['display-message', '-p', '-t', `=${driver.session}:`, '#{session_name}:#{window_id}.#{pane_id}']);
        expect(driver.row.tmux).toBe(where.trim());
        expect(driver.row.pidDomain).toMatch(/^linux:[0-9a-f]+:pid:\[\d+\]$/);
      } else {
        expect(driver.row.tmux).toBeUndefined();
        expect(driver.row.pidDomain).toBeUndefined();
      }
    });

    timed('launch prompt: a prompt starting with - reaches the model as text, never as options', async () => {
      const took = await checkLaunchPrompts({ ...world, spawnArgs: (slug) => ['spawn', slug, '--cwd', world.work] });
      timing.note(`launch prompts at the model: ${took.map((t) => `${t.toFixed(1)} s`).join(', ')}`);
    });

    timed('e: every pid that claude agents --json lists is live to tmux-fleet', async () => {
      await world.waitForPrompt(driver.session);
      await expectAgentsLive(world, 1);
    });

    timed('b, live Driver: takeover without --force is refused while the Driver runs', async () => {
      const r = await world.fleet(['takeover', 'ta', '--as', OTHER]);
      expect(r.exitCode).toBe(9);
      expect((await world.readTask('ta')).driverSid).toBe(driver.sid);
    });

    timed('c: /clear in the Driver: the task follows to the new sid (handover reason clear), the status stays owner', async () => {
      driver = await clearFollows(world, 'ta', driver);
      await captureRow(version, '', driver.row);
    });

    timed('turn: a real turn: busy while the model answers, then idle', async () => {
      await world.typeLine(driver.session, 'write a haiku about tmux');
      await until(async () => (await world.option(driver.session, '@fleet-agent')).includes('busy'), "the Driver's @fleet-agent busy", 30_000, 100);
      await until(async () => (await world.option(driver.session, '@fleet-agent')).includes('idle'), "the Driver's @fleet-agent idle again", 30_000, 100);
      expect(world.rowOf(driver.sid)?.status).toBe('idle');
      expect(world.model.traffic.some((t) => t.prompt?.includes('write a haiku about tmux') && t.tools?.includes('Bash') && t.stream)).toBe(true);
    });

    timed('wait: a Driver waiting for a permission: its segment, the attention count, a toast, its dashboard row first, attention --jump; answered, the wait clears everywhere', async () => {
      client = await world.attachClient('keeper');
      await world.typeLine(driver.session, 'please list the root');
      const row = await until(() => {
        const r = world.rowOf(driver.sid);
        return r?.status === 'waiting' ? r : null;
      }, 'the Driver waiting', 60_000, 100);
      const rowAt = Date.now();
      expect(row.waitingFor).toBe('permission prompt');
      await captureRow(version, '-waiting', row);
      // With the PermissionRequest hook (hooks install), the Driver's wait says what it is for, as a job's does.
      const sentence = 'approve Bash: ls -la /';
      await until(async () => (await world.option(driver.session, '@fleet-agent')).includes(`! ${sentence}`), "the Driver's @fleet-agent waiting, with the hook's sentence", 20_000, 50);
      timing.note(`wait: the Driver's wait shown ${Date.now() - rowAt} ms after its row said so`);
      expect(await world.option('keeper', '@fleet-attention')).toContain('! 1 waiting');
      await until(async () => (await client!.screen()).includes(`fleet: ta waits: ${sentence}`), 'the toast on the attached client', 20_000, 100);
      // Told beyond tmux too: the notify command ran for the wait. (One notification may carry it with what else the
      // same moments told: the turn before it ended. On 2.1.197 the row says it waits before the hook says for what,
      // so the first notification may name the row's 'permission prompt', the hook's sentence coming in the next.)
      await until(() => world.notices().some((l) => /^(\S+ )*wait /.test(l) && /\bta waits: /.test(l)), 'the notify command for the wait', 20_000, 100).catch((e: Error) => {
        const log = (() => {
          try {
            return readFileSync(join(world.home, 'fleet', 'log'), 'utf8').split('\n').filter((l) => l.includes('notify')).slice(-10);
          } catch {
            return [];
          }
        })();
        throw new Error(`${e.message}; the notify command got: ${JSON.stringify(world.notices())}; the supervisor's log: ${JSON.stringify(log)}`);
      });
      timing.note(`wait: the notify command got ${JSON.stringify(world.notices().slice(-3))}`);
      const dash = await openDashboard(world);
      await until(async () => firstTableLine(await dash.screen()).startsWith('  ta '), 'the waiting task first in the dashboard', 20_000, 250);
      expect(firstTableLine(await dash.screen())).toMatch(/^ {2}ta\s+op-ta\s.*approve Bash: ls -la \//);
      await dash.quit();
      const jump = await world.fleet(['attention', '--jump', '--client', client.name]);
      expect(jump.stdout.trim()).toBe('ta: switched to op-ta');
      expect(await client.session()).toBe('op-ta');
      // Back where it was: the turn's end is then in a session nobody shows.
      await world.tmux(['switch-client', '-c', client.name, '-t', '=keeper:']);
      await until(async () => ((await client!.session()) === 'keeper' ? true : null), 'the client back on keeper', 10_000, 100);
      const doneLine = (l: string) => l.includes('ta finished its turn');
      const doneBefore = world.notices().filter(doneLine).length;
      // 1. Yes: the tool runs, the turn ends.
      await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'Enter']);
      await until(() => world.rowOf(driver.sid)?.status === 'idle', 'the Driver idle after the answer', 60_000, 100);
      await until(
        async () => (await world.option(driver.session, '@fleet-agent')).includes('idle') && !(await world.option('keeper', '@fleet-attention')).includes('waiting'),
        'the wait cleared in the segment and the attention count',
        20_000,
        100,
      );
      expect((await attention(world)).waiting).toEqual([]);
      // The turn's end, while the client shows another session: told, and the session marked unseen.
      await until(() => world.notices().filter(doneLine).length > doneBefore, 'the notify command for the finished turn', 20_000, 100);
      expect(await world.option(driver.session, '@fleet-unseen')).toMatch(/^\d+ ta finished its turn$/);
    });

    timed('send: a multi-line prompt reaches the model as one message; refused while the Driver waits for a permission, which stays pending', async () => {
      // A wait an earlier scenario left (one that failed midway) is declined first: this one starts from an idle Driver.
      if (world.rowOf(driver.sid)?.status === 'waiting') await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'Escape']);
      await until(() => world.rowOf(driver.sid)?.status === 'idle', 'the Driver idle', 60_000, 100);
      const took = await sendReachesModel(world, 'ta');
      timing.note(`send: a 3-line prompt at the model ${took.toFixed(1)} s after send`);
      await until(() => world.rowOf(driver.sid)?.status === 'idle', 'the Driver idle after the sent prompt', 60_000, 100);
      // The permission prompt, asked for by a prompt sent the same way.
      const asked = await world.fleet(['send', 'ta', 'please list the root']);
      expect(asked.exitCode, asked.stderr).toBe(0);
      const refused = await sendRefusedWhileWaiting(world, 'ta', async () => world.rowOf(driver.sid)?.status === 'waiting' && (await world.screen(driver.session)).includes('Do you want to proceed?'));
      expect(refused.stderr).toMatch(/the Driver of ta: it waits/);
      timing.note(`send: refused with: ${refused.stderr.trim()}`);
      // 1. Yes: the wait ends as it would have.
      await world.tmux(['send-keys', '-t', `=${driver.session}:`, 'Enter']);
      await until(() => world.rowOf(driver.sid)?.status === 'idle', 'the Driver idle after the answer', 60_000, 100);
    });

    timed(
      traits.parks
        ? "park: Left mid-turn, the job then waits for a permission: the Driver's session shows the job's need in Claude Code's words (never blank meanwhile), attention lists it under the task; Enter on its dashboard row opens claude attach, where the answer clears the wait everywhere; the job finishes; d, e, b parked"
        : "park: Left mid-turn, the job then waits for a permission: no row links the job to its tab, attention lists the job by its id in Claude Code's words; Enter on its dashboard row opens claude attach, where the answer clears the wait everywhere; the job finishes",
      async () => {
        const tab = await world.spawn('tp');
        const before = jobDirs(world);
        await world.typeLine(tab.session, 'park me: list the root');
        // Busy, or already waiting for the permission (a poll can fall between the two).
        await until(() => ['busy', 'waiting'].includes(world.rowOf(tab.sid)?.status ?? ''), 'the tab busy', 60_000, 200);
        await world.waitForPrompt(tab.session);
        await sleep(500);
        const leftAt = Date.now();
        await world.tmux(['send-keys', '-t', `=${tab.session}:`, 'Left']);
        timing.note(`park: Left sent at ${new Date(leftAt).toISOString().slice(11, 22)}`);
        const jobId = await until(() => newJobDir(world, before), 'the job of the park (its state file)', 90_000, 100);
        await captureJobState(version, 'starting', world.jobState(jobId));
        // While the work is parked the Driver's agent segment is never blank: sampled until the job's need shows.
        const samples: string[] = [];
        const need = 'approve Bash: ls -la /';
        const start = 'send a prompt to start';
        const jobRowOf = () => world.rows().find((r) => r.jobId === jobId && r.kind === 'bg');
        let waitingAt = 0;
        let idleSince = 0;
        let tookUp = true;
        // What the job looked like at the last look, for the message if it never waits.
        let seen = '';
        await until(async () => {
          const v = await world.option(tab.session, '@fleet-agent');
          samples.push(v);
          const job = jobRowOf();
          const state = world.jobState(jobId);
          seen = JSON.stringify({ segment: v, row: job && { status: job.status, waitingFor: job.waitingFor }, state: state && { state: state.state, tempo: state.tempo, needs: state.needs, detail: state.detail } });
          if (job?.status === 'waiting' && waitingAt === 0) waitingAt = Date.now();
          // The job's row says waiting a moment before its state file says blocked (seen on 2.1.197 in CI).
          if (waitingAt !== 0) return traits.parks ? v.includes(`! ${need}`) : world.jobState(jobId)?.needs === need;
          // A job may not take up the turn (2.1.197 was seen not to, twice in CI): idle, asking for a prompt, for
          // 20 s; or still asking for one a minute after Left without a word to the model (it asks within about 20 s).
          if (state?.needs === start) {
            const silent = Date.now() - leftAt > 60_000 && !world.model.traffic.some((t) => t.at > leftAt && t.method === 'POST' && t.prompt?.includes('park me'));
            if (idleSince === 0 && (job?.status === 'idle' || silent)) idleSince = Date.now();
            if (idleSince !== 0 && (silent || Date.now() - idleSince > 20_000)) {
              tookUp = false;
              return true;
            }
          } else idleSince = 0;
          return false;
        }, traits.parks ? `the Driver's @fleet-agent showing "${need}"` : 'the job waiting', 150_000, 100).catch(async (err: Error) => {
          throw new Error(`${err.message}\nat the last look: ${seen}\n${await whatIsSeen(world, jobId, tab.session)}`);
        });
        expect(samples.filter((v) => v === '')).toEqual([]);
        const whoWaits = traits.parks ? 'tp' : `job ${jobId}`;
        const openAttach = async () => {
          const dash = await openDashboard(world);
          await dash.select(traits.parks ? /^ {2}tp / : new RegExp(`^ {2}job ${jobId} `));
          expect(firstTableLine(await dash.screen())).toMatch(traits.parks ? /^ {2}tp / : new RegExp(`^ {2}job ${jobId} · park me: list the root`));
          await dash.press('Enter');
          const opened = await attachWindow(world, jobId);
          expect(opened.session).toBe(traits.parks ? 'op-tp' : 'fleet-jobs');
          await until(() => dash.gone(), 'the dashboard closed after Enter', 20_000, 200);
          return opened;
        };
        let attach: Awaited<ReturnType<typeof attachWindow>> | null = null;
        if (tookUp) {
          timing.note(`park: Left to the job waiting ${seconds(waitingAt - leftAt)}; its need in the Driver's segment ${traits.parks ? `${Date.now() - waitingAt} ms after the job's row` : '(not linked)'}`);
        } else {
          // Its wait is Claude Code's "send a prompt to start": shown and listed as such; the prompt is sent in claude attach.
          timing.note(`park: the job did not take up the turn; it asked for a prompt (Claude Code's "${start}"); at the last look: ${seen}`);
          const asks = await until(async () => {
            const waiting = (await attention(world)).waiting;
            return waiting.length > 0 ? waiting : null;
          }, "attention listing the job's ask", 20_000, 250).catch(async (err: Error) => {
            throw new Error(`${err.message}\n${await whatIsSeen(world, jobId, tab.session)}`);
          });
          expect(asks).toEqual([expect.objectContaining({ who: whoWaits, what: start })]);
          if (traits.parks) expect(await world.option(tab.session, '@fleet-agent')).toContain(`! ${start}`);
          attach = await openAttach();
          await world.typeLine(attach.pane, 'list the root');
          await until(() => jobRowOf()?.status === 'waiting' && world.jobState(jobId)?.needs === need, 'the job waiting after the prompt', 90_000, 100);
          if (traits.parks) await until(async () => (await world.option(tab.session, '@fleet-agent')).includes(`! ${need}`), "the Driver's @fleet-agent showing the need", 20_000, 100);
        }
        const jobRow = await until(() => jobRowOf(), 'the job row', 30_000, 100);
        expect(jobRow.waitingFor).toBe('permission prompt');
        expect(world.jobState(jobId)).toMatchObject({ tempo: 'blocked', needs: need });
        await captureJobState(version, 'blocked', world.jobState(jobId));
        await captureRow(version, '-job-waiting', jobRow);
        const listed = (await attention(world)).waiting;
        if (traits.parks) {
          const parked = world.rowOf(tab.sid) as Row;
          expect(parked.parkedJobId).toBe(jobId);
          expect(parked.pid).toBe(tab.row.pid);
          expect(parked.tmux).toBe(tab.row.tmux);
          expect(jobRow.sessionId.startsWith(jobId)).toBe(true);
          expect(await world.option(tab.session, '@fleet-hop')).toContain(`${short(tab.sid)} → ${short(jobRow.sessionId)}`);
          const follow = JSON.parse((await world.fleet(['follow', tab.sid, '--json'])).stdout) as { attached: string; chain: { sessionId: string; alive: boolean; needs: string | null }[] };
          expect(follow.attached).toBe(jobRow.sessionId);
          expect(follow.chain.map((r) => [r.sessionId, r.alive])).toEqual([
            [tab.sid, true],
            [jobRow.sessionId, true],
          ]);
          expect(follow.chain[1]!.needs).toBe(need);
          expect(listed).toEqual([expect.objectContaining({ who: whoWaits, what: need, target: { kind: 'job', jobId, parkedBy: 'op-tp' } })]);
          // e, with a background job: claude agents lists the job (and the Driver of ta), not the parked tab.
          const agents = await expectAgentsLive(world, 2);
          expect(agents.map((a) => a.pid)).toContain(jobRow.pid);
          expect(agents.map((a) => a.pid)).not.toContain(tab.row.pid);
        } else {
          expect(world.rows().some((r) => r.parkedJobId === jobId)).toBe(false);
          expect(listed).toEqual([expect.objectContaining({ who: whoWaits, what: need, target: { kind: 'job', jobId, parkedBy: null } })]);
        }

        attach ??= await openAttach();
        await until(async () => (await world.tmux(['capture-pane', '-p', '-t', attach!.pane])).includes('Do you want to proceed?'), 'the permission prompt in claude attach', 60_000, 250);
        // 1. Yes, answered in the job's own window.
        await world.tmux(['send-keys', '-t', attach.pane, 'Enter']);
        await until(async () => !(await world.option('keeper', '@fleet-attention')).includes('waiting') && (await attention(world)).waiting.length === 0, 'the wait cleared: no attention', 60_000, 250);
        if (traits.parks) await until(async () => !(await world.option(tab.session, '@fleet-agent')).includes('!'), "the wait cleared in the Driver's segment", 20_000, 100);
        // The job finishes its turn: idle, in its row and its state file.
        await until(() => world.rows().find((r) => r.jobId === jobId)?.status === 'idle' && world.jobState(jobId)?.tempo === 'idle', 'the job idle', 60_000, 250);
        await captureJobState(version, 'idle', world.jobState(jobId));
        if (traits.parks) {
          // send to the job by its id: typed through its own claude attach, in a window closed again after.
          const before = world.model.traffic.length;
          const sent = await world.fleet(['send', jobId, 'write a haiku about background jobs']);
          expect(sent.exitCode, sent.stderr).toBe(0);
          expect(sent.stdout).toContain(`sent a one-line prompt to background job ${jobId} (through claude attach in op-tp)`);
          await until(() => world.model.traffic.slice(before).some((t) => (t.promptText ?? '').trim() === 'write a haiku about background jobs'), 'the job asking the model with the sent prompt', 60_000, 250);
          expect((await world.tmux(['list-windows', '-a', '-F', '#{window_name}'])).split('\n')).not.toContain(`send-${jobId}`);
          await until(() => world.rows().find((r) => r.jobId === jobId)?.status === 'idle', 'the job idle after the sent prompt', 60_000, 250);
          await until(async () => (await world.option(tab.session, '@fleet-agent')).includes('idle'), "the Driver's segment idle", 20_000, 100);
          // Where the work goes back to the tab, the hop ends; Claude Code may keep it on the job.
          const still = world.rowOf(tab.sid)?.parkedJobId === jobId;
          timing.note(`park: after the job finished, the tab's row ${still ? 'still names the job (no way back in the registry)' : 'names no job: the work came back'}`);
          if (!still) await until(async () => (await world.option(tab.session, '@fleet-hop')) === '', '@fleet-hop empty after the work came back', 20_000, 100);
          // b: the tab killed while its job holds the task's work. Its row goes with it.
          await world.tmux(['kill-session', '-t', `=${tab.session}:`]);
          await until(() => !world.rowOf(tab.sid), 'the tab row gone', 30_000, 200);
          expect(world.rows().some((r) => r.jobId === jobId)).toBe(true);
          const takeover = await world.fleet(['takeover', 'tp', '--as', OTHER]);
          expect(takeover.exitCode).toBe(9);
          expect((await world.readTask('tp')).driverSid).toBe(tab.sid);
        }
      },
    );

    timed(`api error${traits.parks ? ', dashboard job' : ''}: a tab outside any task parked mid-turn whose job gets HTTP 500: attention lists the job with Claude Code's "API unavailable — retry"${traits.parks ? "; its tab gone, Enter on the job's dashboard row opens claude attach in a window; x, y stops it and its row goes" : ''}`, async () => {
      const tabsBefore = new Set(world.rows().map((r) => r.sessionId));
      await world.tmux(['new-session', '-d', '-s', 'loose', '-c', world.work, '-x', '200', '-y', '50', world.binary]);
      const tab = await until(() => world.rows().find((r) => r.kind === 'interactive' && !tabsBefore.has(r.sessionId)), 'the loose tab row', 120_000, 200);
      const before = jobDirs(world);
      await world.typeLine('loose', 'api error: read the disk');
      await until(() => world.rowOf(tab.sessionId)?.status === 'busy', 'the loose tab busy', 60_000, 200);
      await world.waitForPrompt('loose');
      await sleep(500);
      await world.tmux(['send-keys', '-t', '=loose:', 'Left']);
      const jobId = await until(() => newJobDir(world, before), 'the job of the loose tab', 90_000, 200);
      const waiter = await until(async () => (await attention(world)).waiting.find((w) => w.who === `job ${jobId}` && w.what.startsWith('API unavailable — retry')), "the job's API error listed by attention", 120_000, 500).catch(
        async (err: unknown) => {
          throw new Error(`${String(err)}\n${await whatIsSeen(world, jobId, 'loose')}`);
        },
      );
      expect(waiter.what).toContain('API Error: 500 scripted failure');
      expect(world.jobState(jobId)).toMatchObject({ state: 'blocked', tempo: 'blocked' });
      timing.note(`api error: the job's row says ${world.rows().find((r) => r.jobId === jobId)?.status ?? 'no status'} while its state file says "${String(world.jobState(jobId)?.needs).slice(0, 40)}…"`);
      await captureJobState(version, 'api-error', world.jobState(jobId));
      await world.tmux(['kill-session', '-t', '=loose:']);
      await until(() => !world.rowOf(tab.sessionId), 'the loose tab row gone', 30_000, 200);
      // The dashboard's Enter and x on a job, once, on the versions whose parks are followed.
      if (!traits.parks) return;

      // A table line (indented two columns; the bottom line, `job <id> stopped`, is not).
      const jobLine = new RegExp(`^ {2}job ${jobId} `);
      const open = await openDashboard(world);
      await open.select(jobLine);
      const opened = Date.now();
      await open.press('Enter');
      // The tab is gone: the job opens in a new window of @fleet-jobs-session (fleet-jobs).
      const attach = await attachWindow(world, jobId);
      timing.note(`dashboard Enter to a running claude attach: ${seconds(Date.now() - opened)}`);
      expect(attach.session).toBe('fleet-jobs');
      expect(attach.window).toBe(`job-${jobId}`);
      // The agent command is @fleet-agent-cmd: the cached binary, exec'd by sh.
      expect(attach.argv).toEqual([world.binary, 'attach', jobId]);
      // Enter on a job closes the dashboard.
      await until(() => open.gone(), 'the dashboard closed after Enter', 20_000, 200);

      const stop = await openDashboard(world);
      await stop.select(jobLine);
      await stop.press('x');
      await until(async () => (await stop.screen()).includes(`stop background job ${jobId}? (y/n)`), 'the stop question', 20_000, 200);
      await stop.press('y');
      await until(() => !world.rows().some((r) => r.jobId === jobId), `the registry row of job ${jobId} gone`, 60_000, 250);
      // The bottom line says so, and no table line shows the job any more.
      await until(async () => {
        const lines = (await stop.screen()).split('\n');
        return lines.some((l) => l.includes(`job ${jobId} stopped`)) && !lines.some((l) => jobLine.test(l));
      }, `job ${jobId} stopped and gone from the dashboard`, 30_000, 250);
      await stop.quit();
    });

    if (traits.parks) {
      timed('/bg: the tab ends and its session closes; the work runs as a job nothing links to the tab, so the owner reads gone', async () => {
        const tab = await world.spawn('tb');
        await world.typeLine(tab.session, 'hold on: write a limerick about panes');
        await until(() => world.rowOf(tab.sid)?.status === 'busy', 'the tab busy', 60_000, 200);
        const jobsBefore = new Set(world.rows().filter((r) => r.jobId).map((r) => r.jobId));
        await world.typeLine(tab.session, '/bg');
        await until(() => !world.rowOf(tab.sid), 'the tab row gone after /bg', 60_000, 250);
        // The pane's process has ended: its session closes.
        await until(async () => !(await world.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').includes(tab.session), `${tab.session} closed`, 30_000);
        const job = await until(
          () => world.rows().find((r) => r.kind === 'bg' && r.jobId && !jobsBefore.has(r.jobId) && !r.spare),
          'the /bg job row',
          60_000,
          250,
        );
        expect(job.sessionId.startsWith(job.jobId as string)).toBe(true);
        // Its request is held by the model server: the job at work.
        const active = await until(() => (world.jobState(job.jobId as string)?.tempo === 'active' ? world.jobState(job.jobId as string) : undefined), 'the /bg job active', 60_000, 250);
        await captureJobState(version, 'active', active);
        expect(world.rows().some((r) => r.parkedJobId === job.jobId)).toBe(false);
        const other = await world.fleet(['owner', 'tb', '--as', OTHER]);
        expect(other.stdout).toMatch(new RegExp(`^9 other ${tab.sid} gone`));
        expect(other.exitCode).toBe(9);
      });
    }

    if (traits.resume) {
      timed('resume: r on the row of a task whose Driver was killed restores it; the task follows (handover reason resume)', async () => {
        const tr = await world.spawn('tr');
        await world.typeLine(tr.session, 'write a sonnet about sockets');
        // Something to resume: the conversation on disk. The transcript file comes first with only
        // settings records; `claude --resume` of that prints "No conversation found" and exits.
        await until(() => {
          const file = transcriptOf(world.home, tr.sid);
          return file !== '' && transcriptHasConversation(file);
        }, `the prompt in the transcript of ${tr.sid}`, 60_000, 250);
        process.kill(tr.row.pid, 'SIGKILL');
        await until(async () => / gone/.test((await world.fleet(['owner', 'tr', '--as', OTHER])).stdout), 'owner to read the killed Driver gone', 30_000, 250);

        const dash = await openDashboard(world);
        await dash.select(/^ {2}tr /);
        await until(async () => (await dash.screen()).includes('r restores it'), 'the row to offer r', 20_000, 250);
        await dash.press('r');
        const task = await until(async () => {
          const t = await world.readTask('tr');
          const last = t.handovers?.at(-1);
          return last?.reason === 'resume' && last.to !== '' && t.driverSid === last.to ? t : null;
        }, 'the task to follow the resumed session', 120_000, 250).catch(async (err) => {
          const sessions = await world.tmux(['list-sessions', '-F', '#{session_name} #{pane_current_command} dead=#{pane_dead}']).catch((e) => String(e));
          const screen = await world.screen('op-tr').catch((e) => String(e));
          throw new Error(`${err}\ntask: ${JSON.stringify(await world.readTask('tr'))}\nsessions:\n${sessions}\nop-tr:\n${screen}`);
        });
        // The resumed agent stamped op-tr: the handover spawn recorded names the session it resumed in.
        expect(task.handovers.at(-1)).toMatchObject({ from: tr.sid, reason: 'resume', to: task.driverSid, pane: 'op-tr' });
        expect(task.spawnNonce ?? '').toBe('');
        timing.note(`resume: resumed session id ${task.driverSid === tr.sid ? 'kept' : 'new'}`);
        await dash.quit();
      });
    }

    timed(`done: a Driver that finishes its own task (done --as its own id) is asked to exit its own way and does; the task is archived${traits.resume ? '; reopen --resume restarts its conversation' : ''}`, async () => {
      const tf = await world.spawn('tf');
      await world.typeLine(tf.session, 'write a haiku about tmux');
      await until(() => {
        const file = transcriptOf(world.home, tf.sid);
        return file !== '' && transcriptHasConversation(file) && world.rowOf(tf.sid)?.status === 'idle';
      }, `the turn of ${tf.sid} done and in its transcript`, 60_000, 250);
      const r = await world.fleet(['done', 'tf', '--yes', '--as', tf.sid]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('tf: Driver asked to exit (Ctrl-C twice): its session op-tf closes as it exits');
      const exitedAt = Date.now();
      await until(() => !world.rowOf(tf.sid), `the Driver's row gone (it exited)`, 30_000, 100);
      await until(async () => !(await world.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n').includes('op-tf'), 'op-tf closed with its agent', 30_000, 100);
      timing.note(`done: the Driver gone ${seconds(Date.now() - exitedAt)} after done returned`);
      expect((await world.readTask('tf')).archivedAt).toMatch(/^\d{4}-/);
      expect((await world.fleet(['tasks'])).stdout).not.toMatch(/^tf\s/m);
      if (!traits.resume) return;
      const back = await world.fleet(['reopen', 'tf', '--resume']);
      expect(back.exitCode, back.stderr).toBe(0);
      expect(back.stdout).toContain(`tf: respawned in tmux session op-tf, resuming ${tf.sid}`);
      // Its conversation is back: the earlier turn on its screen.
      await until(async () => (await world.screen('op-tf')).includes('write a haiku about tmux'), 'the resumed conversation on the screen', 90_000, 250).catch(async (err: Error) => {
        throw new Error(`${err.message}\nop-tf:\n${await world.screen('op-tf').catch((e: unknown) => String(e))}`);
      });
      expect((await world.readTask('tf')).archivedAt).toBeUndefined();
      await world.tmux(['kill-session', '-t', '=op-tf:']);
    });

    timed(`hookless: with hooks uninstalled, spawn is stamped by process ancestry (owner 0)${traits.hooklessClear ? '; /clear hands the task over (reason clear)' : ''}`, async () => {
      const un = await world.fleet(['hooks', 'uninstall']);
      expect(un.exitCode).toBe(0);
      expect(readFileSync(join(world.home, '.claude', 'settings.json'), 'utf8')).not.toContain('tmux-fleet');
      const started = Date.now();
      const th = await world.spawn('th');
      const agentStarted = Number(th.row.startedAt);
      timing.note(
        `hookless: spawn to stamp: ${seconds(Date.now() - started)}` +
          (Number.isFinite(agentStarted) ? ` (${seconds(Date.now() - agentStarted)} after the row's startedAt)` : ''),
      );
      // The stamp lands first, the task's fill a moment later (the same stamp code path).
      await until(async () => (await world.readTask('th')).driverSid === th.sid, `task th filled with ${th.sid}`, 30_000, 200);
      const self = await world.fleet(['owner', 'th', '--as', th.sid]);
      expect(self.stdout).toMatch(/^0 owner/);
      expect(self.exitCode).toBe(0);
      if (traits.hooklessClear) await clearFollows(world, 'th', th);
      // The hooks back, as the scenarios after this one expect them (restore: a resumed agent stamps through its hook).
      const re = await world.fleet(['hooks', 'install']);
      expect(re.exitCode, re.stderr).toBe(0);
    });

    timed('b, killed Driver: an unparked Driver\'s process killed: gone, takeover allowed', async () => {
      process.kill(driver.row.pid, 'SIGKILL');
      const other = await until(async () => {
        const r = await world.fleet(['owner', 'ta', '--as', OTHER]);
        return / gone/.test(r.stdout) ? r : null;
      }, 'owner to read the killed Driver gone', 20_000, 250);
      expect(other.stdout).toMatch(new RegExp(`^9 other ${driver.sid} gone`));
      const takeover = await world.fleet(['takeover', 'ta', '--as', OTHER]);
      expect(takeover.exitCode).toBe(0);
      expect((await world.readTask('ta')).driverSid).toBe(OTHER);
    });

    // On the versions whose resumes and parks are followed (a resumed 2.1.197 was seen to exit before it stamped).
    if (traits.resume && traits.parks)
    timed(
      "restore: a Driver that had a turn, /clear and a second turn, and a tab parked on a job; the server killed with every agent process (the job's daemon too): the load says what can be restored; restore brings each back in a new session of its name, the Driver in its conversation after /clear, the tab in its job's; owner 0, one session each",
      async () => {
        const rs = await world.spawn('rs');
        await world.typeLine(rs.session, 'restore one: the turn before the clear');
        await until(() => world.model.traffic.some((t) => t.promptText?.includes('restore one')), 'the first turn at the model', 60_000, 200);
        const cleared = await clearFollows(world, 'rs', rs);
        await world.typeLine(rs.session, 'restore two: the turn after the clear');
        await until(() => {
          const file = transcriptOf(world.home, cleared.sid);
          return file !== '' && readFileSync(file, 'utf8').includes('restore two');
        }, "the second turn's prompt in the transcript after /clear", 60_000, 250);
        await until(() => world.rowOf(cleared.sid)?.status === 'idle', 'the second turn done', 60_000, 200);

        // The tab: its work parked on a background job that takes up the turn (and waits for a permission).
        const tab = await world.spawn('rp');
        const before = jobDirs(world);
        await world.typeLine(tab.session, 'park for restore: list the root');
        await until(() => ['busy', 'waiting'].includes(world.rowOf(tab.sid)?.status ?? ''), 'the tab busy', 60_000, 200);
        await world.waitForPrompt(tab.session);
        await sleep(500);
        await world.tmux(['send-keys', '-t', `=${tab.session}:`, 'Left']);
        const jobId = await until(() => newJobDir(world, before), 'the job of the park', 90_000, 100).catch(async (err: Error) => {
          throw new Error(`${err.message}\n${await whatIsSeen(world, '', tab.session)}`);
        });
        const job = await until(() => world.rows().find((r) => r.jobId === jobId && r.kind === 'bg'), 'the job row', 60_000, 200);
        await until(() => {
          const file = transcriptOf(world.home, job.sessionId);
          return file !== '' && transcriptHasConversation(file) ? file : '';
        }, "the job's own conversation", 90_000, 250);
        await until(() => continuedIn(transcriptOf(world.home, tab.sid)) === job.sessionId, "the tab's transcript ending in the job", 30_000, 250);

        const oldPids = [rs.row.pid, tab.row.pid, job.pid];
        await world.restartServer();
        expect(world.processes().map((p) => p.pid).filter((p) => oldPids.includes(p))).toEqual([]);
        // The load on the new server: no client yet, so the message waits for the first one.
        await world.tmux(['run-shell', join(ROOT, 'tmux-plugin.tmux')]);
        const said = await until(async () => {
          const m = await world.tmux(['show-option', '-gqv', '@fleet-pending-messages']).catch(() => '');
          return /\d+ tasks can be restored: prefix R/.test(m) ? m : '';
        }, 'the load saying what can be restored', 60_000, 250);
        timing.note(`restore: the load said "${said.trim().replace(/^· /, '')}"`);

        const started = Date.now();
        const r = await world.fleet(['restore', 'rs', 'rp']);
        timing.note(`restore: output:\n${r.stdout.trimEnd()}`);
        expect(r.exitCode, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toContain(`restored rs: resumed conversation ${cleared.sid} in a new tmux session op-rs`);
        expect(r.stdout).toContain(`restored rp: resumed background job ${jobId}'s conversation ${job.sessionId} (the tab ${tab.sid} had parked its work on it) in a new tmux session op-rp`);

        // The Driver: a new process in a new op-rs, stamped with the id it resumed; the task is its again.
        const stamp = await until(() => world.stamp('op-rs'), 'the stamp of the restored Driver', 120_000, 200);
        timing.note(`restore: restore to the Driver's stamp ${seconds(Date.now() - started)}; its session id after --resume ${stamp === cleared.sid ? 'kept' : `new (${stamp})`}`);
        expect(stamp).toBe(cleared.sid);
        // A new process's row (the killed one's may be left behind, dead: a power cut leaves them so).
        await until(() => world.rows().find((r) => r.sessionId === cleared.sid && !oldPids.includes(r.pid)), "the restored Driver's row", 60_000, 200);
        await until(async () => (await world.readTask('rs')).driverSid === cleared.sid, 'task rs filled by the restored Driver', 30_000, 200);
        expect((await world.readTask('rs')).handovers.at(-1)).toMatchObject({ from: cleared.sid, to: cleared.sid, reason: 'resume', pane: 'op-rs' });
        const owner = await world.fleet(['owner', 'rs', '--as', cleared.sid]);
        expect(owner.stdout).toMatch(/^0 owner/);
        expect(owner.exitCode).toBe(0);
        // Its conversation is the one after /clear: the second turn's prompt, not the first's.
        await until(async () => (await world.screen('op-rs')).includes('restore two'), "the second turn on the restored Driver's screen", 60_000, 250);
        expect(await world.screen('op-rs')).not.toContain('restore one');
        // The parked tab: its job's conversation, resumed in the tab's session. Claude Code 2.1.333 either resumes it in the
        // pane (stamped with the job's id), or, when its daemon has taken the job up again first (the hook then runs outside
        // tmux), shows it there from the daemon: a restore tmux-fleet cannot prove yet (docs/ownership.md#restore, its known limit).
        const restartedAt = new Date(started).toISOString();
        const hookOutside = () => {
          try {
            // The job's hook ran again after the restore, outside tmux: the daemon runs it (the log's lines start with their time).
            return readFileSync(join(world.home, 'fleet', 'log'), 'utf8')
              .split('\n')
              .some((l) => l.slice(0, 24) >= restartedAt && l.includes(`outside tmux (no $TMUX_PANE): ${job.sessionId} not stamped`));
          } catch {
            return false;
          }
        };
        const respawned = () =>
          hookOutside() || world.rows().some((r) => r.sessionId === job.sessionId && r.kind === 'bg' && !oldPids.includes(r.pid) && world.processes().some((p) => p.pid === r.pid));
        const came = await until(async () => (await world.stamp('op-rp')) || (respawned() ? 'daemon' : ''), 'the restored tab stamped, or its job taken up by the daemon', 120_000, 200).catch(async (e: Error) => {
          throw new Error(`${e.message}; its screen:\n${await world.screen('op-rp').catch((x: Error) => x.message)}`);
        });
        // The daemon may take the job up and the pane still resume it: the stamp, when it comes, is what is checked.
        const parked = came === 'daemon' ? await until(() => world.stamp('op-rp'), 'the stamp of the restored tab', 20_000, 200).catch(() => '') : came;
        if (parked === '') {
          timing.note('restore: the parked tab\'s job was taken up by Claude Code\'s daemon, not resumed in the pane: not stamped');
        } else {
          timing.note(`restore: the parked tab came back as ${parked === job.sessionId ? "its job's session id" : parked}`);
          expect(parked).toBe(job.sessionId);
          await until(async () => (await world.readTask('rp')).driverSid === job.sessionId, 'task rp filled with the job conversation', 30_000, 200);
          expect((await world.readTask('rp')).handovers.at(-1)).toMatchObject({ from: tab.sid, to: job.sessionId, reason: 'resume', resumed: job.sessionId, job: jobId });
          expect((await world.fleet(['owner', 'rp', '--as', job.sessionId])).exitCode).toBe(0);
        }
        await until(async () => (await world.screen('op-rp')).includes('park for restore'), "the job's turn on the restored tab's screen", 60_000, 250);
        // One session each.
        const names = (await world.tmux(['list-sessions', '-F', '#{session_name}'])).split('\n');
        expect(names.filter((n) => n === 'op-rs' || n === 'op-rp').sort()).toEqual(['op-rp', 'op-rs']);
      },
    );

    timed('close: the world closes leaving no process of its HOME (daemon stopped, server killed)', async () => {
      closed = true;
      await client?.kill();
      await world.claude(['daemon', 'stop', '--any']);
      await world.tmux(['kill-server']).catch(() => '');
      // A transient daemon that a closing agent started after the stop (seen once with 2.1.197) is stopped by the next one.
      let stoppedAt = Date.now();
      const left = await until(
        async () => {
          if (processesWithHome(home).length === 0) return true;
          if (Date.now() - stoppedAt < 3000) return false;
          stoppedAt = Date.now();
          await world.claude(['daemon', 'stop', '--any']);
          return false;
        },
        `no process with HOME ${home}`,
        30_000,
        250,
      )
        .then(() => [])
        .catch(() => processesWithHome(home));
      await world.close();
      expect(left).toEqual([]);
    });
  });
}

/** The rows, a job's state file, `attention --json` and the tab's screen, for a failure's message. */
async function whatIsSeen(world: ClaudeWorld, jobId: string, tabSession = ''): Promise<string> {
  const rows = world.rows().map((r) => JSON.stringify({ pid: r.pid, sid: r.sessionId.slice(0, 8), kind: r.kind, status: r.status, jobId: r.jobId, parkedJobId: r.parkedJobId, spare: r.spare }));
  const state = world.jobState(jobId);
  return [
    `rows:\n  ${rows.join('\n  ')}`,
    `state of ${jobId}: ${JSON.stringify(state ? { state: state.state, tempo: state.tempo, needs: state.needs } : null)}`,
    `jobs with a state file: ${[...jobDirs(world)].join(' ')}`,
    `attention: ${JSON.stringify((await attention(world)).waiting)}`,
    ...(tabSession ? [`${tabSession}:\n${await world.screen(tabSession).catch((e: unknown) => String(e))}`] : []),
  ].join('\n');
}

/** The first line of the dashboard's table (the one under the header). */
function firstTableLine(screen: string): string {
  const lines = screen.split('\n');
  return lines[lines.findIndex((l) => /TASK\s+SESSION/.test(l)) + 1] ?? '';
}

/** `tmux-fleet attention --json`. */
async function attention(world: ClaudeWorld): Promise<{ waiting: { who: string; what: string; target: Record<string, unknown> }[] }> {
  const r = await world.fleet(['attention', '--json']);
  if (r.exitCode !== 0) throw new Error(`attention: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The jobs that have a state file (<HOME>/.claude/jobs/<id>/state.json); a warm spare has none until it is handed work. */
function jobDirs(world: ClaudeWorld): Set<string> {
  const dir = join(world.home, '.claude', 'jobs');
  if (!existsSync(dir)) return new Set();
  return new Set(readdirSync(dir).filter((id) => existsSync(join(dir, id, 'state.json'))));
}

/** A job whose state file appeared since `before` (a park writes it before the job's row), or ''. */
function newJobDir(world: ClaudeWorld, before: ReadonlySet<string>): string {
  return [...jobDirs(world)].find((id) => !before.has(id)) ?? '';
}

/** The window whose process is `<binary> attach <jobId>` (until sh has exec'd it, the pane runs `/bin/sh -c 'exec …' … attach <id>`). */
async function attachWindow(world: ClaudeWorld, jobId: string): Promise<{ session: string; window: string; pane: string; argv: string[] }> {
  return until(async () => {
    const panes = (await world.tmux(['list-panes', '-a', '-F', '#{session_name}\t#{window_name}\t#{pane_pid}\t#{pane_current_command}\t#{pane_id}'])).split('\n');
    for (const line of panes) {
      const [session = '', window = '', pid = '', command = '', pane = ''] = line.split('\t');
      const argv = cmdlineOf(Number(pid));
      if (argv.join(' ') === `${world.binary} attach ${jobId}` && command === 'claude') return { session, window, pane, argv };
    }
    return null;
  }, `a window whose process is ${world.binary} attach ${jobId}`, 30_000, 250);
}

/** Every pid `claude agents --json` lists is live to tmux-fleet; returns the list. */
async function expectAgentsLive(world: ClaudeWorld, atLeast: number): Promise<{ pid: number; sessionId: string }[]> {
  const listed = await until(async () => {
    const r = await world.claude(['agents', '--json']);
    const list = JSON.parse(r.stdout || '[]') as { pid: number; sessionId: string }[];
    return list.length >= atLeast ? list : null;
  }, `claude agents --json listing ${atLeast}`, 30_000, 500);
  for (const agent of listed) {
    const seen = await livenessOf(world, agent.sessionId);
    expect({ sid: agent.sessionId, pid: seen.pid, liveness: seen.liveness }).toEqual({ sid: agent.sessionId, pid: agent.pid, liveness: 'live' });
  }
  return listed;
}

/**
 * `/clear` typed in a task's Driver: the stamp moves to a new session id of the
 * same process, the task follows (handover reason clear), and the status stays
 * owner. Returns the Driver with its new sid and row.
 */
async function clearFollows(world: ClaudeWorld, slug: string, driver: { session: string; sid: string; row: Row }): Promise<{ session: string; sid: string; row: Row }> {
  const before = driver.sid;
  await world.typeLine(driver.session, '/clear');
  const after = await until(async () => {
    const s = await world.stamp(driver.session);
    return s !== before ? s : '';
  }, 'the stamp after /clear', 60_000, 200);
  const row = await until(() => world.rowOf(after), 'the row after /clear', 30_000, 200);
  // Same process: pid and procStart kept.
  expect(row.pid).toBe(driver.row.pid);
  expect(row.procStart).toBe(driver.row.procStart);
  const task = await until(async () => {
    const t = await world.readTask(slug);
    return t.driverSid === after ? t : null;
  }, 'the task to follow /clear', 20_000, 200);
  expect(task.handovers?.at(-1)).toMatchObject({ from: before, to: after, reason: 'clear' });
  const self = await world.fleet(['owner', slug, '--as', after]);
  expect(self.stdout).toMatch(/^0 owner/);
  const status = await until(async () => {
    const v = await world.option(driver.session, '@fleet-owner');
    return v.includes(`● owner ${slug}`) ? v : '';
  }, '@fleet-owner after /clear', 20_000);
  expect(status).toContain(`#[${optionDefault('@fleet-style-owner')}]`);
  return { ...driver, sid: after, row };
}

/** The transcript file of a session id under the world's ~/.claude/projects, or '' when none. */
function transcriptOf(home: string, sid: string): string {
  const projects = join(home, '.claude', 'projects');
  if (!existsSync(projects)) return '';
  for (const dir of readdirSync(projects)) {
    const file = join(projects, dir, `${sid}.jsonl`);
    if (existsSync(file)) return file;
  }
  return '';
}
