// The notifier's channels with real parts (docs/notify.md#channels): a client's
// terminal is a pseudo-terminal whose bytes the test reads; the command runs in
// a real shell; the desktop is a real freedesktop notification server (dunst
// on a private D-Bus session bus under Xvfb) whose history the test reads.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notice } from '../../src/notify/notice';
import { desktopRoute, looksAt, Notifier, parseChannels, terminalSequence, type NotifyClient, type NotifyWorld } from '../../src/notify/notifier';
import { makeTempDir, sleep, waitFor, type TempDir } from '../helpers/env';
import { openPty, type Pty } from '../helpers/pty';

const wait = (who: string, what = 'approve Bash: ls -la /', over: Partial<Notice> = {}): Notice => ({
  kind: 'wait',
  who,
  what,
  session: `op-${who}`,
  pane: null,
  task: who,
  agent: 'claude',
  key: `${who}\0${what}`,
  ...over,
});

let tmp: TempDir;
const ptys: Pty[] = [];
beforeAll(async () => {
  tmp = await makeTempDir();
});
afterAll(async () => {
  for (const p of ptys) p.kill();
  await tmp.cleanup();
});

const client = (tty: string, over: Partial<NotifyClient> = {}): NotifyClient => ({ name: tty, session: 'main', tty, termname: 'xterm-256color', termtype: '', activity: '1', control: '0', ...over });
const world = (over: Partial<NotifyWorld>): NotifyWorld => ({
  clients: [],
  panes: new Map(),
  channels: new Set(['terminal']),
  command: '',
  jumpHint: 'prefix A',
  jumpArgv: ['tmux-fleet', 'attention', '--jump'],
  ...over,
});
const logs: string[] = [];
const notifier = (over: Partial<ConstructorParameters<typeof Notifier>[0]> = {}) =>
  new Notifier({ log: (m) => logs.push(m), env: process.env, now: Date.now, gapMs: 400, commandTimeoutMs: 1500, ...over });
/** The OSC notifications in a terminal's bytes. */
const oscs = (bytes: string) => [...bytes.matchAll(/\u001b\](9|777|99);([^\u001b\u0007]*)\u001b\\/g)].map((m) => `${m[1]};${m[2]}`);

describe('parseChannels, looksAt, terminalSequence', () => {
  it('the channels of @fleet-notify; unknown words named', () => {
    expect([...parseChannels('toast terminal').channels]).toEqual(['toast', 'terminal']);
    expect(parseChannels('').channels.size).toBe(0);
    expect(parseChannels(' desktop  phone bell').unknown).toEqual(['phone']);
  });

  it('a client looks at an agent on its session, at its pane when the pane is active; a job only in its window', () => {
    const panes = new Map([
      ['%1', { id: '%1', session: 'op-a', tty: '', active: true }],
      ['%2', { id: '%2', session: 'op-a', tty: '', active: false }],
      ['%3', { id: '%3', session: 'jobs', tty: '', active: true, job: 'e9e4ae8e' }],
    ]);
    expect(looksAt({ session: 'op-a', control: '0' }, { session: 'op-a', pane: '%1' }, panes)).toBe(true);
    expect(looksAt({ session: 'op-a', control: '0' }, { session: 'op-a', pane: '%2' }, panes)).toBe(false);
    expect(looksAt({ session: 'main', control: '0' }, { session: 'op-a', pane: null }, panes)).toBe(false);
    expect(looksAt({ session: 'op-a', control: '1' }, { session: 'op-a', pane: null }, panes)).toBe(false);
    expect(looksAt({ session: 'op-a', control: '0' }, { session: 'op-a', pane: null, job: 'e9e4ae8e' }, panes)).toBe(false);
    expect(looksAt({ session: 'jobs', control: '0' }, { session: 'op-a', pane: null, job: 'e9e4ae8e' }, panes)).toBe(true);
  });

  it.each([
    ['xterm-256color', '', '\u001b]9;tmux-fleet: a waits\u001b\\'],
    ['xterm-kitty', '', '\u001b]99;i=tmux-fleet:d=0:p=title;tmux-fleet\u001b\\\u001b]99;i=tmux-fleet:d=1:p=body;a waits\u001b\\'],
    ['foot', '', '\u001b]777;notify;tmux-fleet;a waits\u001b\\'],
    ['xterm-256color', 'WezTerm 20240203', '\u001b]777;notify;tmux-fleet;a waits\u001b\\'],
    ['xterm-ghostty', '', '\u001b]777;notify;tmux-fleet;a waits\u001b\\'],
  ])('%s %s', (termname, termtype, want) => expect(terminalSequence({ termname, termtype }, 'tmux-fleet', 'a waits')).toBe(want));

  it('a hostile sentence cannot end the sequence, ring, or move the cursor; it is cut', () => {
    const evil = `x\u001b\\\u001b]0;pwn\u0007\u009c\r\n#(touch /tmp/x) ${'y'.repeat(100_000)}`;
    const seq = terminalSequence({ termname: 'foot', termtype: '' }, 'a;b', evil);
    expect(seq.startsWith('\u001b]777;notify;a,b;x')).toBe(true);
    // One escape to open, one to close: nothing of the text is an escape, a BEL, a C1 string terminator or a line break.
    expect(seq.slice(1, -2)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(seq.endsWith('\u001b\\')).toBe(true);
    expect(seq.length).toBeLessThan(400);
    expect(seq).toContain('#(touch /tmp/x)');
  });
});

describe('the terminal channel, on a real pseudo-terminal', () => {
  it('one OSC notification with the task and its sentence; none for a client that shows the waiting pane; several waits as one', async () => {
    const mine = await openPty(tmp.path);
    const other = await openPty(tmp.path);
    ptys.push(mine, other);
    // The notifier's clock, moved by hand past its gap (400 ms here) instead of waiting for it; no settling (it would wait for the clock).
    let clock = Date.now();
    const n = notifier({ now: () => clock, settleMs: 0 });
    const panes = new Map([['%7', { id: '%7', session: 'op-fix-login', tty: '', active: true }]]);
    const w = world({ clients: [client(mine.path), client(other.path, { session: 'op-fix-login' })], panes });
    n.say([wait('fix-login', 'approve Bash: ls -la /', { pane: '%7' })], w, new Set(['fix-login\0approve Bash: ls -la /']));
    await n.idle();
    await waitFor(() => oscs(mine.output()).length === 1, 'the notification on the terminal', 5000);
    expect(oscs(mine.output())).toEqual(['9;tmux-fleet: fix-login waits: approve Bash: ls -la / (prefix A)']);
    // The other client shows the waiting pane: nothing for it.
    expect(oscs(other.output())).toEqual([]);
    // Three waits in one wake, after the gap: one notification.
    clock += 450;
    const three = [wait('a'), wait('b'), wait('c')];
    n.say(three, w, new Set(three.map((x) => x.key as string)));
    await n.idle();
    await waitFor(() => oscs(mine.output()).length === 2, 'the second notification', 5000);
    expect(oscs(mine.output())[1]).toBe('9;tmux-fleet: 3 agents wait: a, b, +1 (prefix A)');
    // The other pty's copy is written by its own script(1): waited for, not assumed.
    await waitFor(() => oscs(other.output()).length === 1, "the other client's notification", 5000);
    expect(oscs(other.output())).toEqual(['9;tmux-fleet: 3 agents wait: a, b, +1 (prefix A)']);
  });

  it('within the gap, notices are held and said together after; a wait answered meanwhile is left out', async () => {
    const pty = await openPty(tmp.path);
    ptys.push(pty);
    const n = notifier({ gapMs: 800 });
    const w = world({ clients: [client(pty.path)] });
    n.say([wait('a')], w, new Set([wait('a').key as string]));
    await waitFor(() => oscs(pty.output()).length === 1, 'the first notification', 5000);
    n.say([wait('b')], w, new Set([wait('a').key as string, wait('b').key as string]));
    n.say([wait('c')], w, new Set([wait('a').key as string, wait('c').key as string]));
    await n.idle();
    await waitFor(() => oscs(pty.output()).length === 2, 'the held notification', 5000);
    expect(oscs(pty.output())).toEqual(['9;tmux-fleet: a waits: approve Bash: ls -la / (prefix A)', '9;tmux-fleet: c waits: approve Bash: ls -la / (prefix A)']);
    // What was left out is in the supervisor's log, where a missing notification is looked for.
    expect(logs).toContain('notify: left out, ended while held: b waits: approve Bash: ls -la /');
  });

  it('a wait a client shows, ended while held, is no line in the log: it would never have been said', async () => {
    const pty = await openPty(tmp.path);
    ptys.push(pty);
    const n = notifier({ gapMs: 800 });
    // The client shows op-shown (its session; no pane named: the session's agent).
    const w = world({ clients: [client(pty.path, { session: 'op-shown' })] });
    n.say([wait('first')], w, new Set([wait('first').key as string]));
    await waitFor(() => oscs(pty.output()).length === 1, 'the first notification', 5000);
    const before = logs.length;
    // Held by the gap, then ended: one the client shows, one it does not.
    n.say([wait('shown'), wait('elsewhere')], w, new Set([wait('first').key as string, wait('shown').key as string, wait('elsewhere').key as string]));
    n.say([], w, new Set([wait('first').key as string]));
    await n.idle();
    expect(logs.slice(before)).toEqual(['notify: left out, ended while held: elsewhere waits: approve Bash: ls -la /']);
  });

  it("a wait whose sentence comes moments after its row's (Claude Code 2.1.197) is said once, with the sentence", async () => {
    const pty = await openPty(tmp.path);
    ptys.push(pty);
    const n = notifier();
    const w = world({ clients: [client(pty.path)] });
    const first = wait('a', 'permission prompt');
    const then = wait('a', 'approve Bash: ls -la /');
    n.say([first], w, new Set([first.key as string]));
    await sleep(70);
    n.say([then], w, new Set([then.key as string]));
    await n.idle();
    await waitFor(() => oscs(pty.output()).length === 1, 'the notification', 5000);
    expect(oscs(pty.output())).toEqual(['9;tmux-fleet: a waits: approve Bash: ls -la / (prefix A)']);
  });

  it("a hostile sentence arrives inert; a tty that is not a terminal, or not this user's, is refused and logged", async () => {
    const pty = await openPty(tmp.path);
    ptys.push(pty);
    const n = notifier();
    const evil = `\u001b]0;pwn\u0007\n#(touch ${tmp.path}/pwned)\u001b[2J`;
    n.say([wait('evil', evil)], world({ clients: [client(pty.path), client('/etc/passwd'), client('/dev/null')] }), new Set([wait('evil', evil).key as string]));
    await n.idle();
    await waitFor(() => oscs(pty.output()).length === 1, 'the notification', 5000);
    const after = pty.output().slice(pty.output().indexOf('\u001b]9;'));
    expect(after).not.toContain('\u0007');
    expect(after).not.toContain('\u001b[2J');
    expect(after).not.toContain('\u001b]0;');
    expect(logs.some((l) => /notify terminal: "\/etc\/passwd" is not a terminal/.test(l))).toBe(true);
    expect(logs.some((l) => /notify terminal: \/dev\/null is not a terminal of this user|notify terminal: "\/dev\/null" is not a terminal/.test(l))).toBe(true);
  });
});

describe('the bell channel', () => {
  it("a BEL from the agent's own pane, when nobody shows it", async () => {
    const pane = await openPty(tmp.path);
    ptys.push(pane);
    const n = notifier();
    n.say(
      [wait('fix-login', 'x', { pane: '%3' })],
      world({ channels: new Set(['bell']), panes: new Map([['%3', { id: '%3', session: 'op-fix-login', tty: pane.path, active: true }]]) }),
      new Set([wait('fix-login', 'x').key as string]),
    );
    await n.idle();
    await waitFor(() => pane.output().includes('\u0007'), 'the bell', 5000);
  });
});

describe('the command channel', () => {
  it('runs with the event in its environment; one that hangs is killed at its limit and logged once, the rest goes on', async () => {
    const out = join(tmp.path, 'command.out');
    const n = notifier();
    const cmd = `printf '%s|%s|%s|%s|%s|%s|%s\\n' "$FLEET_EVENT" "$FLEET_TEXT" "$FLEET_WHO" "$FLEET_TASK" "$FLEET_SESSION" "$FLEET_COUNT" "$FLEET_JUMP" >> ${out}`;
    n.say([wait('fix-login')], world({ channels: new Set(['command']), command: cmd, jumpArgv: ['/usr/bin/node', '/opt/tmux fleet/x.cjs', 'attention', '--jump'] }), new Set([wait('fix-login').key as string]));
    await n.idle();
    expect(readFileSync(out, 'utf8')).toBe("wait|fix-login waits: approve Bash: ls -la /|fix-login|fix-login|op-fix-login|1|/usr/bin/node '/opt/tmux fleet/x.cjs' attention --jump\n");
    // A command that hangs: killed at the limit, logged once; meanwhile the notifier (and the supervisor around it) goes on.
    const hang = notifier();
    const started = Date.now();
    hang.say([wait('a')], world({ channels: new Set(['command']), command: `sleep 30; echo late >> ${out}` }), new Set([wait('a').key as string]));
    const idle = hang.idle();
    // Not blocked: say returned at once.
    expect(Date.now() - started).toBeLessThan(1000);
    await idle;
    expect(logs.filter((l) => l.includes('@fleet-notify-command ran over 1.5 s and was killed'))).toHaveLength(1);
    expect(readFileSync(out, 'utf8')).not.toContain('late');
  });

  it('a failing command is logged with its error, once', async () => {
    const n = notifier({ gapMs: 0 });
    const w = world({ channels: new Set(['command']), command: 'echo boom >&2; exit 3' });
    n.say([wait('x')], w, new Set([wait('x').key as string]));
    await n.idle();
    n.say([wait('y')], w, new Set([wait('y').key as string]));
    await n.idle();
    expect(logs.filter((l) => l === 'notify command: @fleet-notify-command failed (exit 3): boom')).toHaveLength(1);
  });
});

describe('the desktop channel, on a real notification server', () => {
  let xvfb: ChildProcess;
  let dunst: ChildProcess;
  let bus: { address: string; pid: number };
  const display = `:${90 + Math.floor(Math.random() * 400)}`;
  beforeAll(async () => {
    xvfb = spawn('Xvfb', [display, '-nolisten', 'tcp'], { stdio: 'ignore' });
    const launched = execFileSync('dbus-launch', ['--sh-syntax'], { encoding: 'utf8' });
    bus = { address: /DBUS_SESSION_BUS_ADDRESS='([^']+)'/.exec(launched)?.[1] ?? '', pid: Number(/DBUS_SESSION_BUS_PID=(\d+)/.exec(launched)?.[1]) };
    await waitFor(() => {
      try {
        execFileSync('xdpyinfo', ['-display', display], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    }, 'Xvfb', 10_000).catch(() => sleep(500));
    dunst = spawn('dunst', ['-config', '/dev/null'], { stdio: 'ignore', env: { ...process.env, DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: bus.address } });
    // Asked without activating anything: dunstctl before dunst owns the name would have D-Bus start another.
    const owned = () => {
      try {
        const args = ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.Notifications'];
        return execFileSync('dbus-send', args, { encoding: 'utf8', env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address } }).includes('true');
      } catch {
        return false;
      }
    };
    await waitFor(owned, 'dunst on the bus', 10_000);
  });
  afterAll(() => {
    dunst?.kill('SIGKILL');
    xvfb?.kill('SIGKILL');
    if (bus?.pid) process.kill(bus.pid, 'SIGKILL');
  });
  const dunstctl = (args: string[]) => {
    try {
      return execFileSync('dunstctl', args, { encoding: 'utf8', env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address } });
    } catch {
      return '';
    }
  };
  const history = (): { appname: string; summary: string; body: string }[] => {
    dunstctl(['close-all']);
    const h = JSON.parse(dunstctl(['history']) || '{"data":[[]]}') as { data: { appname: { data: string }; summary: { data: string }; body: { data: string } }[][] };
    return (h.data[0] ?? []).map((x) => ({ appname: x.appname.data, summary: x.summary.data, body: x.body.data }));
  };

  it('the server gets summary and body; its action runs the jump for the client that had input last', async () => {
    const jumped = join(tmp.path, 'jumped');
    const jumper = join(tmp.path, 'jump.sh');
    writeFileSync(jumper, `#!/bin/sh\necho "$@" > ${jumped}\n`);
    chmodSync(jumper, 0o755);
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address };
    const n = notifier({ env, actionTimeoutMs: 15_000 });
    const w = world({
      channels: new Set(['desktop']),
      clients: [client('/dev/pts/98', { name: 'older', activity: '100' }), client('/dev/pts/99', { name: 'recent', activity: '200' })],
      jumpArgv: [jumper, 'attention', '--jump'],
    });
    n.say([wait('fix-login')], w, new Set([wait('fix-login').key as string]));
    await waitFor(() => dunstctl(['count', 'displayed']).trim() === '1', 'the notification shown', 10_000);
    dunstctl(['action', '0']);
    await n.idle();
    expect(readFileSync(jumped, 'utf8').trim()).toBe('attention --jump --client recent');
    expect(history()).toEqual([expect.objectContaining({ appname: 'tmux-fleet', summary: 'tmux-fleet', body: 'fix-login waits: approve Bash: ls -la / (prefix A)' })]);
  });

  it('no desktop bus: a note of why, nothing run', () => {
    expect(desktopRoute({ PATH: process.env.PATH })).toEqual(expect.objectContaining({ none: expect.stringMatching(/no desktop session reachable/) }));
    expect(desktopRoute({ PATH: '/nonexistent' })).toEqual({ none: expect.stringMatching(/notify-send not found/) });
  });
});
