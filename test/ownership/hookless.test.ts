// Proof without a hook, on a real tmux server: the stand-in agent with its
// SessionStart hook disabled (STAND_IN_NO_STAMP=1); the supervisor finds it
// by process ancestry. Pending -> stamped; /clear handed over; an agent that
// exits leaves a shell and the status says so; a second agent in that pane is
// matched; a row that only names a pane in its `tmux` field never is.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { waitFor } from '../helpers/env';
import { makeWorld, type World } from '../helpers/stand-in-world';

let w: World;
let supervisor: RunningSupervisor;

const opt = async (session: string, name: string) => (await w.server.run(['show-options', '-qv', '-t', `=${session}:`, name])).trim();
const type = async (session: string, text: string) => {
  await w.server.run(['send-keys', '-t', `=${session}:`, '-l', text]);
  await w.server.run(['send-keys', '-t', `=${session}:`, 'Enter']);
};

beforeAll(async () => {
  w = await makeWorld();
  await exportFleetEnv(w.server, w.fe);
  supervisor = await startSupervisor(w.server, w.fe);
});
afterAll(async () => {
  await supervisor?.stop().catch(() => undefined);
  await w?.close();
});

describe('the supervisor stamps by ancestry, without the hook', () => {
  it('pending -> stamped and owned; /clear is handed over', async () => {
    const r = await w.fleet(['spawn', 'hl', '--cmd', w.standInCmd({ STAND_IN_NO_STAMP: '1' })]);
    expect(r.exitCode, r.stderr).toBe(0);
    const t0 = Date.now();
    const sid = await waitFor(() => opt('op-hl', '@claude_session_id'), 'the stamp by ancestry', 15_000);
    console.log(`hookless spawn: stamped ${Date.now() - t0} ms after spawn returned`);
    expect(await w.waitOwner('hl')).toBe(sid);
    await waitFor(async () => (await opt('op-hl', '@fleet-owner')).includes('owner hl'), 'the owner segment', 15_000);
    expect((await w.readTask('hl')).spawnNonce).toBeUndefined();
    // The supervisor records the Driver's process, which a /clear proves against.
    await waitFor(async () => (await w.readTask('hl')).driverPid !== undefined, 'driverPid recorded');

    await type('op-hl', '/clear');
    const next = await waitFor(async () => {
      const s = await opt('op-hl', '@claude_session_id');
      return s !== sid ? s : '';
    }, 'the new stamp after /clear', 15_000);
    const task = await waitFor(async () => {
      const t = await w.readTask('hl');
      return t.driverSid === next ? t : undefined;
    }, 'the handover', 15_000);
    expect(task?.priorDriverSid).toBe(sid);
    expect(task?.handovers?.at(-1)).toMatchObject({ from: sid, to: next, reason: 'clear' });
    await waitFor(async () => (await opt('op-hl', '@fleet-owner')).includes('owner hl'), 'still the owner', 15_000);
  });

  it('an agent that exits leaves a shell: not owner; a second agent in that pane is matched', async () => {
    const script = join(w.fe.root, 'agent-then-shell.sh');
    await writeFile(script, `${w.standInCmd({ STAND_IN_NO_STAMP: '1' })}\nexec sh\n`);
    const r = await w.fleet(['spawn', 'ex', '--cmd', `sh ${script}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    const first = await waitFor(() => opt('op-ex', '@claude_session_id'), 'the first stamp', 15_000);
    await waitFor(async () => (await opt('op-ex', '@fleet-owner')).includes('owner ex'), 'owner', 15_000);

    await type('op-ex', '/exit');
    await waitFor(async () => (await opt('op-ex', '@fleet-owner')).includes('agent gone'), 'agent gone', 15_000);
    expect(await opt('op-ex', '@fleet-owner')).not.toContain('owner ex');
    // The stamp stays (nothing clears it); the judge calls it gone for anyone else.
    expect(await opt('op-ex', '@claude_session_id')).toBe(first);
    const j = await w.fleet(['owner', 'ex', '--as', 'ffff0000-0000-4000-8000-000000000009']);
    expect(j.stdout).toMatch(new RegExp(`^9 other ${first} gone`));

    // A second agent typed into the shell that remains.
    await type('op-ex', w.standInCmd({ STAND_IN_NO_STAMP: '1' }));
    const second = await waitFor(async () => {
      const s = await opt('op-ex', '@claude_session_id');
      return s !== first ? s : '';
    }, 'the second agent matched', 15_000);
    expect(second).not.toBe(first);
    // Another process is not proof of the same Driver: the task stays with the first, gone.
    expect((await w.readTask('ex')).driverSid).toBe(first);
  });

  it("a row whose process is not under the pane, but whose tmux field names it, is never matched", async () => {
    await w.pendingSession('px');
    const pane = (await w.server.run(['display-message', '-p', '-t', '=op-px:', '#{pane_id}'])).trim();
    await w.liveRow('abcd0000-0000-4000-8000-00000000000a', { tmux: `op-px:@9.${pane}` });
    // A real agent spawned after it is stamped: the supervisor has had a wake that saw the bogus row.
    const r = await w.fleet(['spawn', 'later', '--cmd', w.standInCmd({ STAND_IN_NO_STAMP: '1' })]);
    expect(r.exitCode, r.stderr).toBe(0);
    await waitFor(() => opt('op-later', '@claude_session_id'), 'the later spawn stamped', 15_000);
    await waitFor(async () => (await opt('op-later', '@fleet-owner')).includes('owner later'), 'later rendered', 15_000);
    expect(await opt('op-px', '@claude_session_id')).toBe('');
    expect((await w.readTask('px')).driverSid).toBe('');
  });
});
