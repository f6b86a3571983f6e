// A window opened for a background job shows that job in the status line like
// any Driver: the task's verdict, the hop from the tab, the job's own state,
// as window options over the session's. Read from a real attached client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobCommands } from '../../src/dashboard/jobs';
import { waitFor } from '../helpers/env';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { attachStatusClient, type StatusClient } from '../helpers/tmux-server';
import { makeWorld, type World } from '../helpers/stand-in-world';

const TAB = '7b30aaa7-1111-4000-8000-000000000001';
const JOB = 'cad206e7-2222-4000-8000-000000000002';

let w: World;
let supervisor: RunningSupervisor;
let client: StatusClient | null = null;

beforeAll(async () => {
  w = await makeWorld();
  await exportFleetEnv(w.server, w.fe);
  await w.server.tmux.chain([
    ['set-option', '-g', 'status-left', '[#{@fleet-owner}][#{@fleet-hop}][#{@fleet-agent}]'],
    ['set-option', '-g', 'status-left-length', '150'],
    ['set-option', '-g', 'status-right', ''],
  ]);
  await w.server.newSession('op-t');
  await w.server.run(['set-option', '-t', '=op-t:', '@claude_session_id', TAB]);
  await w.writeTask('t', { driverSid: TAB, driverPane: 'op-t' });
  await w.liveRow(TAB, { status: 'idle', parkedJobId: 'cad206e7' });
  await w.liveRow(JOB, { kind: 'bg', jobId: 'cad206e7', status: 'waiting', waitingFor: 'approve Bash' });
  supervisor = await startSupervisor(w.server, w.fe);
});
afterAll(async () => {
  await client?.kill();
  await supervisor?.stop().catch(() => undefined);
  await w?.close();
});

describe("a job's window", () => {
  it("shows the job's verdict, hop and state; the session's other windows keep the session's", async () => {
    const argv = ['sleep', '600'];
    await w.server.tmux.chain(openJobCommands('op-t', true, argv, 'cad206e7'));
    const win = (await w.server.run(['display-message', '-p', '-t', '=op-t:job-cad206e7', '#{window_id}'])).trim();
    const winOpt = async (name: string) => (await w.server.tmux.tryRun(['show-options', '-wqv', '-t', win, name])).stdout.trim();
    await waitFor(async () => (await winOpt('@fleet-agent')).includes('waiting: approve Bash'), "the job's state on its window", 15_000);
    expect(await winOpt('@fleet-owner')).toContain('owner t');
    expect(await winOpt('@fleet-hop')).toContain('7b30 → cad2');

    client = await attachStatusClient(w.server, 'op-t');
    await client.waitForStatus('waiting: approve Bash', 15_000);

    // The window closes: nothing is left to unset; a window whose mark is removed is cleared.
    await w.server.run(['set-option', '-wu', '-t', win, '@fleet-job']);
    await w.server.run(['new-window', '-d', '-t', '=op-t:', 'sleep 600']); // a session hook wakes the supervisor
    await waitFor(async () => (await winOpt('@fleet-agent')) === '', 'the window cleared', 15_000);
  });
});
