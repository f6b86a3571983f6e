// One dead row never makes a live Driver gone. A Driver that writes no
// registry (stamped with `tmux-fleet stamp --sid`) is live; a registry row
// {"pid":4000000,"sessionId":<its id>} of a dead process once made `takeover`
// succeed without --force. A row only counts when it says something of the
// Driver's own process: a live recorded process outweighs any dead row.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { makeWorld, sq, type World } from '../helpers/stand-in-world';

let w: World;
const DEAD_PID = 4_000_000;

beforeAll(async () => {
  w = await makeWorld();
});
afterAll(async () => {
  await w?.close();
});

/** The row of the issue: a dead pid, the Driver's id, nothing else. */
const deadRow = (sid: string) => writeFile(join(w.fe.registry, `${DEAD_PID}.json`), JSON.stringify({ pid: DEAD_PID, sessionId: sid }));

describe('a dead registry row against a live Driver that writes no registry', () => {
  it('stamped inside its pane (the pane process recorded): refused while it runs, allowed once it exits', async () => {
    const sid = 'noreg-agent-1';
    // The agent: a shell that stamps its own session, then runs on as the same process.
    const agent = `sh -c ${sq(`${sq(process.execPath)} ${sq(FLEET_BIN)} stamp --sid ${sid}; exec sleep 100000`)}`;
    const spawned = await w.fleet(['spawn', 'noreg', '--cmd', agent, '--cwd', w.fe.root]);
    expect(spawned.exitCode, spawned.stderr).toBe(0);
    expect(await w.waitOwner('noreg')).toBe(sid);
    const task = await w.readTask('noreg');
    expect(task.driverPid).toBeGreaterThan(1);

    await deadRow(sid);
    const owner = await w.fleet(['owner', 'noreg', '--as', 'someone-else']);
    expect(owner.stdout).toMatch(new RegExp(`^9 other ${sid} live`));
    const refused = await w.fleet(['takeover', 'noreg', '--as', 'someone-else']);
    expect(refused.exitCode).toBe(9);
    expect((await w.readTask('noreg')).driverSid).toBe(sid);

    // The Driver's process exits while its pane stays open: now it is gone, and a takeover needs no --force.
    await w.server.run(['set-option', '-t', '=op-noreg:', 'remain-on-exit', 'on']);
    process.kill(task.driverPid as number, 'SIGKILL');
    await waitFor(async () => / gone/.test((await w.fleet(['owner', 'noreg', '--as', 'someone-else'])).stdout), 'the Driver gone', 15_000, 100);
    expect(await w.display('op-noreg', '#{@claude_session_id}')).toBe(sid);
    const taken = await w.fleet(['takeover', 'noreg', '--as', 'someone-else']);
    expect(taken.exitCode, taken.stderr).toBe(0);
  });

  it('stamped from outside any pane process (nothing recorded): the stamp stands against a row that names no process', async () => {
    const sid = 'noreg-agent-2';
    await w.server.newSession('by-hand');
    const pane = (await w.display('by-hand', '#{pane_id}')).trim();
    const stamp = await w.fleet(['stamp', '--sid', sid], { env: { TMUX_PANE: pane } });
    expect(stamp.exitCode).toBe(0);
    expect(await w.display('by-hand', '#{@claude_session_id}')).toBe(sid);
    await w.writeTask('by-hand', { driverSid: sid });
    await writeFile(join(w.fe.registry, `${DEAD_PID + 1}.json`), JSON.stringify({ pid: DEAD_PID + 1, sessionId: sid }));
    const refused = await w.fleet(['takeover', 'by-hand', '--as', 'someone-else']);
    expect(refused.exitCode).toBe(9);
    expect((await w.readTask('by-hand')).driverSid).toBe(sid);
  });
});
