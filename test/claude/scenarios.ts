// The scenarios of the real-agent tier, run against one pinned Claude Code
// version in one world (docs/hop.md#what-claude-code-writes records what they
// showed). Each test leaves the world as the next one expects, so they run in
// order; the world is closed, and checked to leave no process, at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../helpers/env';
import { cmdlineOf, openDashboard } from './dashboard';
import { captureRow, livenessOf, makeClaudeWorld, processesWithHome, until, type ClaudeWorld, type Row } from './world';

export interface VersionTraits {
  /** Writes pidDomain, tmux and parkedJobId (parking and its hop can be tested). */
  parks: boolean;
  /**
   * /clear without the hook is followed. 2.1.332 rewrites its row's updatedAt on /clear;
   * 2.1.197 keeps the old updatedAt, and the supervisor follows it once the stamp has
   * settled (docs/ownership.md#the-stamp-without-the-hook).
   */
  hooklessClear: boolean;
  /**
   * Resume with the dashboard's `r` is tested. Offline, a resumed agent was seen to exit
   * seconds after its SessionStart (2.1.197 often, 2.1.332 once in five runs; its session
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
    const timings: string[] = [];
    let t0 = 0;
    const timed = (name: string, fn: () => Promise<void>) =>
      it(name, async () => {
        const start = Date.now();
        try {
          await fn();
        } finally {
          timings.push(`${version} ${name.split(':')[0]}: ${((Date.now() - start) / 1000).toFixed(1)} s`);
        }
      });

    // Task a's Driver, kept across scenarios: spawned in a, cleared in c, killed last.
    let driver = { session: '', sid: '', row: {} as Row };

    beforeAll(async () => {
      t0 = Date.now();
      world = await makeClaudeWorld(version);
      home = world.home;
    });

    afterAll(async () => {
      if (!closed) await world?.close();
      // The tier's timings, in its output (the closing note quotes them).
      timings.push(`${version} whole: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      console.log(timings.map((t) => `claude tier timing: ${t}`).join('\n'));
    });

    timed('a, f: spawn: the real hook stamps; owner 0 for the Driver, 9 other <sid> live for anyone else; @fleet-owner green', async () => {
      driver = await world.spawn('ta');
      const self = await world.fleet(['owner', 'ta', '--as', driver.sid]);
      expect(self.stdout).toMatch(/^0 owner/);
      expect(self.exitCode).toBe(0);
      const other = await world.fleet(['owner', 'ta', '--as', OTHER]);
      expect(other.stdout).toMatch(new RegExp(`^9 other ${driver.sid} live`));
      expect(other.exitCode).toBe(9);
      // The status the Driver's own clients see: the owner state, in its green style.
      const status = await until(async () => {
        const v = await world.option(driver.session, '@fleet-owner');
        return v.includes('owner ta') ? v : '';
      }, '@fleet-owner of the Driver', 20_000);
      expect(status).toContain('● owner ta');
      expect(status).toContain('bg=green');
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

    if (traits.parks) {
      timed('d, e, b parked: a park with Left: @fleet-hop tab → job, follow alive on both rows, @fleet-agent the job\'s; the tab killed while its job runs: takeover refused', async () => {
        const tab = await world.spawn('td');
        await world.typeLine(tab.session, 'write a haiku about tmux');
        // Offline the agent retries the API and stays busy: the moment a park is offered.
        await until(() => world.rowOf(tab.sid)?.status === 'busy', 'the tab busy', 60_000, 200);
        await world.waitForPrompt(tab.session);
        await sleep(500);
        await world.tmux(['send-keys', '-t', `=${tab.session}:`, 'Left']);
        const parked = await until(() => {
          const t = world.rowOf(tab.sid);
          const job = t?.parkedJobId ? world.rows().find((r) => r.jobId === t.parkedJobId && r.kind === 'bg') : undefined;
          return t && job ? { tab: t, job } : null;
        }, 'the park: parkedJobId on the tab and the job row', 90_000, 250);
        expect(parked.tab.pid).toBe(tab.row.pid);
        expect(parked.tab.tmux).toBe(tab.row.tmux);
        expect(parked.job.sessionId.startsWith(parked.job.jobId as string)).toBe(true);
        expect(parked.job.spare).toBeUndefined();

        const hop = await until(async () => {
          const v = await world.option(tab.session, '@fleet-hop');
          return v.includes('→') ? v : '';
        }, '@fleet-hop', 30_000);
        expect(hop).toContain(`${short(tab.sid)} → ${short(parked.job.sessionId)}`);

        const follow = await world.fleet(['follow', tab.sid, '--json']);
        const chain = (JSON.parse(follow.stdout) as { attached: string; chain: { sessionId: string; alive: boolean; liveness?: string }[] });
        expect(chain.attached).toBe(parked.job.sessionId);
        expect(chain.chain.map((r) => [r.sessionId, r.alive])).toEqual([
          [tab.sid, true],
          [parked.job.sessionId, true],
        ]);

        // The job's row gets its status a few seconds after it starts; the status shows that row's.
        const jobStatus = await until(() => world.rows().find((r) => r.jobId === parked.job.jobId)?.status, 'the job row status', 60_000, 250);
        const agent = await until(async () => {
          const v = await world.option(tab.session, '@fleet-agent');
          return v.includes(jobStatus) ? v : '';
        }, `@fleet-agent showing the job's ${jobStatus}`, 30_000);
        expect(agent).toContain(jobStatus);
        await captureRow(version, '-job', world.rows().find((r) => r.jobId === parked.job.jobId) ?? parked.job);

        // e, with a background job: claude agents lists the job (and the Driver of ta), not the parked tab.
        const listed = await expectAgentsLive(world, 2);
        expect(listed.map((a) => a.pid)).toContain(parked.job.pid);
        expect(listed.map((a) => a.pid)).not.toContain(parked.tab.pid);

        // b: the tab killed while its job works on the task. Its row goes with it.
        await world.tmux(['kill-session', '-t', `=${tab.session}:`]);
        await until(() => !world.rowOf(tab.sid), 'the tab row gone', 30_000, 200);
        expect(world.rows().some((r) => r.jobId === parked.job.jobId)).toBe(true);
        const takeover = await world.fleet(['takeover', 'td', '--as', OTHER]);
        expect(takeover.exitCode).toBe(9);
        expect((await world.readTask('td')).driverSid).toBe(tab.sid);
      });

      timed('/bg: the tab ends and its session closes; the work runs as a job nothing links to the tab, so the owner reads gone', async () => {
        const tab = await world.spawn('tb');
        await world.typeLine(tab.session, 'write a limerick about panes');
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
        expect(world.rows().some((r) => r.parkedJobId === job.jobId)).toBe(false);
        const other = await world.fleet(['owner', 'tb', '--as', OTHER]);
        expect(other.stdout).toMatch(new RegExp(`^9 other ${tab.sid} gone`));
        expect(other.exitCode).toBe(9);
      });
    }

    if (traits.parks) {
      timed('16.6 job: a job parked with Left, its tab gone: Enter on its dashboard row opens `claude attach <id>` in a window; x, y stops it and its row goes', async () => {
        // A Claude Code outside any task, in a session of its own: its job is a row of the dashboard once its tab is gone.
        await world.tmux(['new-session', '-d', '-s', 'loose', '-c', world.work, '-x', '200', '-y', '50', world.binary]);
        const tab = await until(() => world.rows().find((r) => r.tmux?.startsWith('loose:') && r.kind !== 'bg'), 'the loose tab row', 120_000, 200);
        await world.typeLine('loose', 'write a haiku about windows');
        await until(() => world.rowOf(tab.sessionId)?.status === 'busy', 'the loose tab busy', 60_000, 200);
        await world.waitForPrompt('loose');
        await sleep(500);
        await world.tmux(['send-keys', '-t', '=loose:', 'Left']);
        const job = await until(() => {
          const t = world.rowOf(tab.sessionId);
          return t?.parkedJobId ? world.rows().find((r) => r.jobId === t.parkedJobId && r.kind === 'bg') : undefined;
        }, 'the park of the loose tab', 90_000, 250);
        const jobId = job.jobId as string;
        await world.tmux(['kill-session', '-t', '=loose:']);
        await until(() => !world.rowOf(tab.sessionId), 'the loose tab row gone', 30_000, 200);

        // A table line (indented two columns; the bottom line, `job <id> stopped`, is not).
        const jobLine = new RegExp(`^ {2}job ${jobId} `);
        const open = await openDashboard(world);
        await open.select(jobLine);
        const opened = Date.now();
        await open.press('Enter');
        // No client is attached: the job opens in a new window of @fleet-jobs-session (fleet-jobs).
        const attach = await until(async () => {
          const panes = (await world.tmux(['list-panes', '-a', '-F', '#{session_name}\t#{window_name}\t#{pane_pid}\t#{pane_current_command}'])).split('\n');
          for (const line of panes) {
            const [session = '', window = '', pid = '', command = ''] = line.split('\t');
            // Until sh has exec'd the agent command, the pane runs `/bin/sh -c 'exec …' … attach <id>`.
            const argv = cmdlineOf(Number(pid));
            if (argv.join(' ') === `${world.binary} attach ${jobId}` && command === 'claude') return { session, window, command, argv };
          }
          return null;
        }, `a window whose process is ${world.binary} attach ${jobId}`, 30_000, 250);
        timings.push(`${version} 16.6 Enter to a running claude attach: ${((Date.now() - opened) / 1000).toFixed(1)} s`);
        expect(attach.session).toBe('fleet-jobs');
        expect(attach.window).toBe(`job-${jobId}`);
        // The agent command is @fleet-agent-cmd: the cached binary, exec'd by sh.
        expect(attach.argv).toEqual([world.binary, 'attach', jobId]);
        expect(attach.command).toBe('claude');
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
    }

    if (traits.resume) {
      timed('16.4 resume: r on the row of a task whose Driver was killed runs spawn --replace --resume; the task follows (handover reason resume)', async () => {
        const tr = await world.spawn('tr');
        await world.typeLine(tr.session, 'write a sonnet about sockets');
        // Something to resume: the conversation's transcript on disk.
        await until(() => transcriptOf(world.home, tr.sid), `the transcript of ${tr.sid}`, 60_000, 250);
        process.kill(tr.row.pid, 'SIGKILL');
        await until(async () => / gone/.test((await world.fleet(['owner', 'tr', '--as', OTHER])).stdout), 'owner to read the killed Driver gone', 30_000, 250);

        const dash = await openDashboard(world);
        await dash.select(/^ {2}tr /);
        await until(async () => (await dash.screen()).includes('r resumes it'), 'the row to offer r', 20_000, 250);
        await dash.press('r');
        const task = await until(async () => {
          const t = await world.readTask('tr');
          const last = t.handovers?.at(-1);
          return last?.reason === 'resume' && last.to !== '' && t.driverSid === last.to ? t : null;
        }, 'the task to follow the resumed session', 120_000, 250);
        // The resumed agent stamped op-tr: the handover spawn recorded names the session it resumed in.
        expect(task.handovers.at(-1)).toMatchObject({ from: tr.sid, reason: 'resume', to: task.driverSid, pane: 'op-tr' });
        expect(task.spawnNonce ?? '').toBe('');
        timings.push(`${version} 16.4 resumed session id ${task.driverSid === tr.sid ? 'kept' : 'new'}`);
        await dash.quit();
      });
    }

    timed(`14.6 hookless: with hooks uninstalled, spawn is stamped by process ancestry (owner 0)${traits.hooklessClear ? '; /clear hands the task over (reason clear)' : ''}`, async () => {
      const un = await world.fleet(['hooks', 'uninstall']);
      expect(un.exitCode).toBe(0);
      expect(readFileSync(join(world.home, '.claude', 'settings.json'), 'utf8')).not.toContain('tmux-fleet');
      const started = Date.now();
      const th = await world.spawn('th');
      const agentStarted = Number(th.row.startedAt);
      timings.push(
        `${version} 14.6 hookless spawn to stamp: ${((Date.now() - started) / 1000).toFixed(1)} s` +
          (Number.isFinite(agentStarted) ? ` (${((Date.now() - agentStarted) / 1000).toFixed(1)} s after the row's startedAt)` : ''),
      );
      // The stamp lands first, the task's fill a moment later (the same stamp code path).
      await until(async () => (await world.readTask('th')).driverSid === th.sid, `task th filled with ${th.sid}`, 30_000, 200);
      const self = await world.fleet(['owner', 'th', '--as', th.sid]);
      expect(self.stdout).toMatch(/^0 owner/);
      expect(self.exitCode).toBe(0);
      if (traits.hooklessClear) await clearFollows(world, 'th', th);
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

    timed('close: the world closes leaving no process of its HOME (daemon stopped, server killed)', async () => {
      closed = true;
      await world.claude(['daemon', 'stop', '--any']);
      await world.tmux(['kill-server']).catch(() => '');
      const left = await until(() => processesWithHome(home).length === 0, `no process with HOME ${home}`, 15_000, 250)
        .then(() => [])
        .catch(() => processesWithHome(home));
      await world.close();
      expect(left).toEqual([]);
    });
  });
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
  expect(status).toContain('bg=green');
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
