// Notifications from a real supervisor on a real server (docs/notify.md): a
// client attached from a pseudo-terminal whose bytes the test reads (script),
// stand-in Drivers that wait as Claude Code does (their PermissionRequest
// hook, then their row), and the unseen mark set by a turn finished in a
// session nobody shows, cleared when the client switches there.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, sleep, waitFor, type FleetEnv } from '../helpers/env';
import { MIN_GAP_MS } from '../../src/notify/notifier';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { openPty, type Pty } from '../helpers/pty';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { startServer, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;
let supervisor: RunningSupervisor;
let pty: Pty;
let clientName = '';

const AGENT = `${process.execPath} ${STAND_IN}`;
/** The OSC 9 notifications the client's terminal got, in order. */
const oscs = () => [...Buffer.from(pty.output(), 'latin1').toString('utf8').matchAll(/\u001b\]9;([^\u001b\u0007]*)\u001b\\/g)].map((m) => m[1] as string);
/** An option as the session sees it: its own, else the global one (the fleet's attention is global). */
const opt = async (session: string, name: string) => (await server.run(['show-options', '-qvA', '-t', `=${session}:`, name])).trim();
const type = async (session: string, text: string) => {
  await server.run(['send-keys', '-t', `=${session}:`, '-l', text]);
  await server.run(['send-keys', '-t', `=${session}:`, 'Enter']);
};
let marks = 0;
/**
 * Waits until whatever the supervisor's ticks so far may say has reached the client's terminal:
 * its next ticks (ticks()), then a mark written to the same terminal after them, read back.
 * For a check that no other notification came: it cannot pass because one came late.
 */
const everythingSaid = async () => {
  await supervisor.ticks();
  const mark = `fleet-test-mark-${++marks}`;
  const fd = openSync(pty.path, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
  try {
    writeSync(fd, `\u001b]2;${mark}\u0007`);
  } finally {
    closeSync(fd);
  }
  await waitFor(() => pty.output().includes(mark), 'the mark written after the ticks', 10_000);
};
const switchTo = async (session: string) => {
  await server.run(['switch-client', '-c', clientName, '-t', `=${session}:`]);
  await waitFor(async () => (await server.run(['display-message', '-p', '-c', clientName, '#{session_name}'])).trim() === session, `the client on ${session}`, 10_000);
};

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  // Claude Code's hooks as `hooks install` writes them: the stamp, and the wait's sentence.
  await mkdir(fenv.claudeDir, { recursive: true });
  const hook = (args: string) => [{ hooks: [{ type: 'command', command: `'${process.execPath}' '${FLEET_BIN}' ${args}` }] }];
  await writeFile(join(fenv.claudeDir, 'settings.json'), JSON.stringify({ hooks: { SessionStart: hook('stamp'), PermissionRequest: hook('event --agent claude') } }));
  await server.tmux.chain([
    ['set-option', '-g', 'status-right', '#{@fleet-attention}'],
    ['set-option', '-g', 'status-right-length', '100'],
    ['set-option', '-g', '@fleet-notify', 'toast terminal'],
    ['new-session', '-d', '-s', 'main', '-x', '160', '-y', '20', 'sleep 86400'],
  ]);
  supervisor = await startSupervisor(server, fenv);
  for (const slug of ['a', 'b', 'c']) {
    const r = await runFleet(['spawn', slug, '--cmd', AGENT], { env: fenv.env });
    expect(r.exitCode, r.stderr).toBe(0);
  }
  for (const slug of ['a', 'b', 'c']) await waitFor(async () => (await opt(`op-${slug}`, '@fleet-owner')).includes(`owner ${slug}`), `op-${slug} owns ${slug}`, 20_000);
  // The client: a real terminal (script's pty), on session main.
  await mkdir(join(fenv.root, 'ptys'), { recursive: true });
  pty = await openPty(join(fenv.root, 'ptys'), `env -u TMUX TERM=xterm-256color tmux -L ${server.name} attach-session -t =main:`);
  clientName = await waitFor(async () => (await server.run(['list-clients', '-F', '#{client_name}'])).trim(), 'the client', 10_000);
  // The agents settle idle; what that tells (a turn finished) is said, and a channel's gap passes (a rule of time).
  for (const slug of ['a', 'b', 'c']) await type(`op-${slug}`, '/status idle');
  await sleep(MIN_GAP_MS + 500);
});

afterAll(async () => {
  pty?.kill();
  await supervisor?.stop().catch(() => undefined);
  await server?.kill();
  await fenv?.cleanup();
});

describe('a terminal notification on a real attached client', () => {
  it("a wait in another session: exactly one OSC notification, with the task and its hook's sentence", async () => {
    const before = oscs().length;
    await type('op-a', '/ask Bash ls -la /');
    await waitFor(() => oscs().length > before, 'the notification', 15_000);
    await everythingSaid();
    expect(oscs().slice(before)).toEqual(['tmux-fleet: a waits: approve Bash: ls -la / (prefix A)']);
    expect(await opt('op-a', '@fleet-agent')).toContain('! approve Bash: ls -la /');
  });

  it('while the client shows the waiting pane: nothing for it; waits within the gap come as one, after it', async () => {
    await switchTo('op-b');
    const before = oscs().length;
    await type('op-b', '/ask Bash make test');
    await waitFor(async () => (await opt('op-b', '@fleet-agent')).includes('approve Bash: make test'), "op-b's wait shown", 15_000);
    await type('op-c', '/ask Bash rm -rf build');
    // b is what the client shows: left out; c alone, after the gap since a's.
    await waitFor(() => oscs().length > before, "c's notification", 15_000);
    await everythingSaid();
    expect(oscs().slice(before)).toEqual(['tmux-fleet: c waits: approve Bash: rm -rf build (prefix A)']);
    // Both answered; two new waits within one gap: one notification for both.
    await switchTo('main');
    for (const s of ['a', 'b', 'c']) await type(`op-${s}`, '/status busy');
    await sleep(MIN_GAP_MS + 500);
    const before2 = oscs().length;
    await type('op-a', '/ask Bash one');
    await waitFor(() => oscs().length > before2, 'the first of the next waits', 15_000);
    await type('op-b', '/ask Bash two');
    await type('op-c', '/ask Bash three');
    await waitFor(() => oscs().length > before2 + 1, 'the held ones, together', 15_000);
    await everythingSaid();
    const said = oscs().slice(before2);
    expect(said).toHaveLength(2);
    expect(said[0]).toBe('tmux-fleet: a waits: approve Bash: one (prefix A)');
    expect(said[1]).toMatch(/^tmux-fleet: (b waits: approve Bash: two · c waits: approve Bash: three|c waits: approve Bash: three · b waits: approve Bash: two) \(prefix A\)$/);
  });

  it('a hostile sentence arrives inert: no escape of it reaches the terminal, no shell runs it', async () => {
    for (const s of ['a', 'b', 'c']) await type(`op-${s}`, '/status busy');
    await sleep(MIN_GAP_MS + 500);
    const marker = join(fenv.root, 'pwned');
    const before = oscs().length;
    const startBytes = pty.output().length;
    await type('op-a', `/ask Bash $(touch ${marker}) #(touch ${marker}) \u001b]0;pwn\u0007 \u001b[2J`);
    await waitFor(() => oscs().length > before, 'the notification', 15_000);
    const said = oscs().slice(before)[0] as string;
    expect(said).toContain(`$(touch ${marker}) #(touch ${marker})`);
    expect(said).not.toMatch(/[\u0000-\u001f]/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
    // The pane's own echo of the typed text went to the pane, not to our client on main: no title set by it.
    expect(pty.output().slice(startBytes)).not.toContain('\u001b]0;pwn');
  });
});

describe('unseen', () => {
  it('a turn finished in a session nobody shows: marked, counted done; cleared when the client switches there', async () => {
    // What the earlier tests left unseen is seen: the client visits each session.
    for (const s of ['a', 'b', 'c']) {
      await switchTo(`op-${s}`);
      await waitFor(async () => (await opt(`op-${s}`, '@fleet-unseen')) === '', `op-${s} seen`, 15_000);
    }
    await switchTo('main');
    expect(await opt('main', '@fleet-attention')).not.toContain('done');
    await type('op-c', 'write a haiku');
    await waitFor(async () => (await opt('op-c', '@fleet-agent')).includes('busy'), 'op-c busy', 15_000);
    await type('op-c', '/status idle');
    await waitFor(async () => (await opt('op-c', '@fleet-unseen')) !== '', 'op-c marked unseen', 15_000);
    expect(await opt('op-c', '@fleet-unseen')).toMatch(/^\d+ c finished its turn$/);
    expect(await opt('main', '@fleet-attention')).toContain('✓ 1 done');
    // The agent's window is marked for #{fleet_window} in the window list: a window option, the session's other windows not.
    const windowOpt = async () => (await server.run(['show-options', '-wqv', '-t', '=op-c:', '@fleet-window'])).trim();
    await waitFor(async () => (await windowOpt()).includes('✓'), "op-c's window marked", 10_000);
    // The client's own status line says it.
    await waitFor(() => pty.output().includes('1 done'), 'the done count drawn on the client', 10_000);
    // The attention key: nobody waits now (a's wait answered), so it goes to what finished unseen.
    await type('op-a', '/status busy');
    await waitFor(async () => !(await opt('main', '@fleet-attention')).includes('waiting'), 'no wait left', 15_000);
    const jump = await runFleet(['attention', '--jump', '--client', clientName], { env: fenv.env });
    expect(jump.stdout.trim()).toBe('c: switched to op-c (it finished while nobody looked)');
    await waitFor(async () => (await opt('op-c', '@fleet-unseen')) === '', 'the mark cleared', 15_000);
    expect(await opt('main', '@fleet-attention')).not.toContain('done');
    await waitFor(async () => (await windowOpt()) === '', "the window's mark cleared", 10_000);
  });

  it('a turn finished in the session the client shows is seen: no mark', async () => {
    await switchTo('op-b');
    await type('op-b', 'write a haiku');
    await waitFor(async () => (await opt('op-b', '@fleet-agent')).includes('busy'), 'op-b busy', 15_000);
    await type('op-b', '/status idle');
    await waitFor(async () => (await opt('op-b', '@fleet-agent')).includes('idle'), 'op-b idle', 15_000);
    expect(await opt('op-b', '@fleet-unseen')).toBe('');
  });
});
