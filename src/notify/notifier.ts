// Says a wake's notices where the person is (docs/notify.md): the channels of
// @fleet-notify beyond tmux's own toast (which the render writes with the
// segments): the terminal of each attached client (an OSC notification, or a
// bell), the desktop (notify-send, osascript), and a command of the user's.
// Each notification is the notices coalesced, never about what a client shows
// (its session's active pane), at most one per MIN_GAP_MS per channel (the
// rest held and said together after), and nothing here ever blocks the
// supervisor: every write and process is asynchronous, time-limited, and its
// failure is one line in the log.
import { spawn } from 'node:child_process';
import { constants, existsSync, fstat, open, write, close } from 'node:fs';
import { delimiter, join } from 'node:path';
import { oneLineText } from '../agents/signals';
import { coalesce, noticeText, type Notice } from './notice';

export const CHANNELS = ['toast', 'terminal', 'desktop', 'bell', 'command'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The channels an @fleet-notify value names (space-separated), and the words that name none. */
export function parseChannels(value: string): { channels: Set<Channel>; unknown: string[] } {
  const channels = new Set<Channel>();
  const unknown: string[] = [];
  for (const word of value.split(/\s+/).filter(Boolean)) {
    if ((CHANNELS as readonly string[]).includes(word)) channels.add(word as Channel);
    else unknown.push(oneLineText(word, 40));
  }
  return { channels, unknown };
}

/** A client as the notifier sees it (src/tmux/snapshot.ts CLIENT_FIELDS). */
export interface NotifyClient {
  name: string;
  session: string;
  tty: string;
  termname: string;
  termtype: string;
  /** #{client_activity}: when it last had input (epoch seconds). */
  activity: string;
  control: string;
}

export interface NotifyPane {
  id: string;
  session: string;
  tty: string;
  /** The active pane of its session's active window. */
  active: boolean;
  /** The background job its window was opened for, or ''. */
  job?: string;
}

/** What the notifier knows of the server when it speaks. */
export interface NotifyWorld {
  clients: readonly NotifyClient[];
  panes: ReadonlyMap<string, NotifyPane>;
  channels: ReadonlySet<Channel>;
  /** @fleet-notify-command: a shell command, run with the event in its environment. */
  command: string;
  /** How to get to the agent, said in every notification: `prefix A`, else the command. */
  jumpHint: string;
  /** The command line that jumps (the command channel's FLEET_JUMP; the desktop action runs it). */
  jumpArgv: readonly string[];
}

/**
 * A client shows the agent: it is on the agent's session, and the agent's
 * pane (when known) is the one shown; a background job only in a window
 * opened for it.
 */
export function looksAt(client: Pick<NotifyClient, 'session' | 'control'>, n: Pick<Notice, 'session' | 'pane' | 'job'>, panes: ReadonlyMap<string, NotifyPane>): boolean {
  if (client.control === '1') return false;
  if (n.job) {
    for (const p of panes.values()) if (p.job === n.job && p.active && p.session === client.session) return true;
    return false;
  }
  if (n.session === null || client.session !== n.session) return false;
  if (n.pane === null) return true;
  return panes.get(n.pane)?.active ?? true;
}

/** The notices nobody looks at: what the desktop, the bell and the command say. */
export function unseenBy(clients: readonly NotifyClient[], notices: readonly Notice[], panes: ReadonlyMap<string, NotifyPane>): Notice[] {
  return notices.filter((n) => !clients.some((c) => looksAt(c, n, panes)));
}

/** Text for a terminal's notification: printable, no `;` where the protocol splits fields, cut. */
function termText(s: string, max: number): string {
  return oneLineText(s, max).replace(/[\u0080-\u009f]/g, ' ');
}

/**
 * The notification escape sequence a client's terminal shows (docs/notify.md#terminals):
 * kitty's OSC 99; OSC 777 (`notify;<title>;<body>`) for foot, WezTerm, Ghostty,
 * rxvt-unicode; OSC 9 for everything else (iTerm2, Windows Terminal, ConEmu's
 * successors...), which terminals that do not know it ignore. Ends with ST.
 */
export function terminalSequence(client: Pick<NotifyClient, 'termname' | 'termtype'>, title: string, body: string): string {
  const t = termText(title, 60).replace(/;/g, ',');
  const b = termText(body, 240);
  const term = `${client.termname} ${client.termtype}`.toLowerCase();
  if (term.includes('kitty')) return `\u001b]99;i=tmux-fleet:d=0:p=title;${t}\u001b\\\u001b]99;i=tmux-fleet:d=1:p=body;${b}\u001b\\`;
  if (/foot|wezterm|ghostty|rxvt/.test(term)) return `\u001b]777;notify;${t};${b}\u001b\\`;
  return `\u001b]9;${t}: ${b}\u001b\\`;
}

/** A path that can be a terminal of ours: /dev/pts/N or /dev/ttyX, nothing else. */
const TTY_RE = /^\/dev\/(pts\/\d{1,6}|tty[A-Za-z0-9]{1,8})$/;

/**
 * Writes bytes to a terminal in one write: only a character device of this
 * user, opened without becoming its controlling terminal and without
 * blocking (a terminal that does not read is skipped, not waited on).
 */
export function writeToTerminal(path: string, bytes: string): Promise<string | null> {
  if (!TTY_RE.test(path)) return Promise.resolve(`${JSON.stringify(path)} is not a terminal`);
  return new Promise((resolve) => {
    open(path, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK, (err, fd) => {
      if (err) return resolve(`${path}: ${err.code ?? err.message}`);
      const done = (why: string | null) => close(fd, () => resolve(why));
      fstat(fd, (e, st) => {
        if (e) return done(`${path}: ${e.code ?? e.message}`);
        if (!st.isCharacterDevice() || (process.getuid && st.uid !== process.getuid())) return done(`${path} is not a terminal of this user`);
        write(fd, bytes, (we) => done(we ? `${path}: ${we.code ?? we.message}` : null));
      });
    });
  });
}

/** The first of these programs on PATH, or null. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** Where a desktop notification can go from here, or why none can (for doctor: a note, not an error). */
export function desktopRoute(env: NodeJS.ProcessEnv = process.env): { kind: 'notify-send' | 'osascript'; program: string; env: NodeJS.ProcessEnv } | { none: string } {
  if (process.platform === 'darwin') {
    const osa = onPath('osascript', env);
    return osa ? { kind: 'osascript', program: osa, env } : { none: 'osascript not found' };
  }
  const program = onPath('notify-send', env);
  if (!program) return { none: 'notify-send not found (Debian/Ubuntu: apt install libnotify-bin)' };
  if (env.DBUS_SESSION_BUS_ADDRESS) return { kind: 'notify-send', program, env };
  const bus = process.getuid ? `/run/user/${process.getuid()}/bus` : '';
  if (bus && existsSync(bus)) return { kind: 'notify-send', program, env: { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${bus}` } };
  return { none: 'no desktop session reachable (no DBUS_SESSION_BUS_ADDRESS, no /run/user/<uid>/bus)' };
}

/** How long a notify command may run; then it is killed. */
export const COMMAND_TIMEOUT_MS = 10_000;
/** How long a desktop notification's action is waited for. */
export const DESKTOP_ACTION_MS = 60_000;
/** At most one notification per channel this often; notices in between are said together after. */
export const MIN_GAP_MS = 5000;
/**
 * How long a notice waits for what the next moments add before it is said
 * (docs/notify.md#coalescing): Claude Code 2.1.197 writes its row's wait about
 * 70 ms before its PermissionRequest hook says what for, so a wait said at once
 * would name the row's `permission prompt` and its sentence come 5 s later.
 */
export const SETTLE_MS = 250;

interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a program, never through a shell unless asked, killed (its process group) after timeoutMs. */
function runProcess(argv: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ProcessResult> {
  return new Promise((resolve) => {
    let out = '';
    let errText = '';
    let timedOut = false;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(argv[0] as string, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      resolve({ code: null, stdout: '', stderr: err instanceof Error ? err.message : String(err), timedOut: false });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.stdout?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-4096)));
    child.stderr?.on('data', (b: Buffer) => (errText = (errText + b.toString()).slice(-4096)));
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: out, stderr: err.message, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: out, stderr: errText, timedOut });
    });
  });
}

export interface NotifierIO {
  log(message: string): void;
  env: NodeJS.ProcessEnv;
  now(): number;
  /** MIN_GAP_MS, SETTLE_MS, COMMAND_TIMEOUT_MS and DESKTOP_ACTION_MS, unless given (tests). */
  gapMs?: number;
  settleMs?: number;
  commandTimeoutMs?: number;
  actionTimeoutMs?: number;
}

/**
 * The supervisor's notifier. `say` takes each wake's notices with what the
 * server looks like then; the channels it names speak SETTLE_MS after, or, within
 * MIN_GAP_MS of their last notification, together once the gap is over
 * (a wait answered meanwhile is left out: `current` keeps the waits that hold).
 */
export class Notifier {
  private readonly last = new Map<Channel, number>();
  private held: Notice[] = [];
  /** When the first notice held now came: it is said no sooner than settleMs after. */
  private heldSince = 0;
  private timer: NodeJS.Timeout | null = null;
  private world: NotifyWorld | null = null;
  private current: ReadonlySet<string> = new Set();
  /** Failures already logged: each once until it changes. */
  private readonly logged = new Set<string>();
  /** What the channels did (tests, the debug log). */
  readonly sent: { channel: Channel; text: string; at: number }[] = [];
  private pending = 0;
  private idleWaiters: (() => void)[] = [];

  private readonly gapMs: number;
  private readonly settleMs: number;
  private readonly commandMs: number;
  private readonly actionMs: number;

  constructor(private readonly io: NotifierIO) {
    this.gapMs = io.gapMs ?? MIN_GAP_MS;
    this.settleMs = io.settleMs ?? SETTLE_MS;
    this.commandMs = io.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
    this.actionMs = io.actionTimeoutMs ?? DESKTOP_ACTION_MS;
  }

  /** The notices of a wake; `current`: the keys of the waits that hold now. */
  say(notices: readonly Notice[], world: NotifyWorld, current: ReadonlySet<string>): void {
    this.world = world;
    this.current = current;
    const external = [...world.channels].filter((c) => c !== 'toast');
    if (external.length === 0) {
      this.held = [];
      return;
    }
    if (notices.length > 0) {
      if (this.held.length === 0) this.heldSince = this.io.now();
      this.held.push(...notices);
    }
    this.flush();
  }

  /** Resolves once nothing is being said (tests). */
  idle(): Promise<void> {
    if (this.pending === 0 && this.timer === null) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private flush(): void {
    const world = this.world;
    if (!world || this.held.length === 0) return this.settle();
    const now = this.io.now();
    const next = Math.max(this.heldSince + this.settleMs, ...[...world.channels].filter((c) => c !== 'toast').map((c) => (this.last.get(c) ?? -Infinity) + this.gapMs));
    if (next > now) {
      if (this.timer === null) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.flush();
        }, next - now);
        this.timer.unref?.();
      }
      return;
    }
    // Waits answered while held are no news any more.
    const notices = this.held.filter((n) => n.kind === 'done' || n.key === undefined || this.current.has(n.key));
    // Said in the log: a notification the person never got is the first thing to look for there. Not those a client
    // shows (a wait on the screen is never said): each new wait of a watched agent would be a line.
    if (notices.length < this.held.length) {
      const missed = unseenBy(world.clients, this.held.filter((n) => !notices.includes(n)), world.panes);
      if (missed.length > 0) this.io.log(`notify: left out, ended while held: ${missed.map(noticeText).join(' · ')}`);
    }
    this.held = [];
    for (const c of world.channels) if (c !== 'toast') this.last.set(c, now);
    if (notices.length > 0) this.speak(notices, world);
    this.settle();
  }

  private settle(): void {
    if (this.pending === 0 && this.timer === null) for (const r of this.idleWaiters.splice(0)) r();
  }

  private track<T>(p: Promise<T>): void {
    this.pending++;
    void p.finally(() => {
      this.pending--;
      this.settle();
    });
  }

  private failed(channel: Channel, why: string): void {
    const line = `notify ${channel}: ${why}`;
    if (this.logged.has(line)) return;
    this.logged.add(line);
    this.io.log(line);
  }

  private record(channel: Channel, text: string): void {
    this.sent.push({ channel, text, at: this.io.now() });
    if (this.sent.length > 100) this.sent.shift();
  }

  private speak(notices: readonly Notice[], world: NotifyWorld): void {
    const hint = world.jumpHint ? ` (${world.jumpHint})` : '';
    if (world.channels.has('terminal')) {
      for (const c of world.clients) {
        if (c.control === '1' || c.tty === '') continue;
        const mine = notices.filter((n) => !looksAt(c, n, world.panes));
        if (mine.length === 0) continue;
        const text = coalesce(mine);
        this.record('terminal', text);
        this.track(writeToTerminal(c.tty, terminalSequence(c, 'tmux-fleet', `${text}${hint}`)).then((why) => why && this.failed('terminal', why)));
      }
    }
    const unseen = unseenBy(world.clients, notices, world.panes);
    if (unseen.length === 0) return;
    const text = coalesce(unseen);
    if (world.channels.has('bell')) {
      const ttys = new Set(unseen.map((n) => (n.pane ? world.panes.get(n.pane)?.tty : undefined)).filter((t): t is string => !!t));
      for (const tty of ttys) {
        this.record('bell', tty);
        // A bell from the agent's own pane: tmux marks its window and rings the clients as bell-action says.
        this.track(writeToTerminal(tty, '\u0007').then((why) => why && this.failed('bell', why)));
      }
    }
    if (world.channels.has('desktop')) this.track(this.desktop(text, hint, world));
    if (world.channels.has('command') && world.command.trim() !== '') this.track(this.command(unseen, text, world));
  }

  private async desktop(text: string, hint: string, world: NotifyWorld): Promise<void> {
    const route = desktopRoute(this.io.env);
    if ('none' in route) return this.failed('desktop', route.none);
    this.record('desktop', text);
    if (route.kind === 'osascript') {
      const r = await runProcess(
        [route.program, '-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', '--', 'tmux-fleet', `${text}${hint}`],
        route.env,
        this.commandMs,
      );
      if (r.code !== 0) this.failed('desktop', `osascript: ${oneLineText(r.stderr || `exit ${r.code}`, 200)}`);
      return;
    }
    // The action waits for a click (notify-send prints its name); the click jumps there.
    const r = await runProcess([route.program, '--app-name=tmux-fleet', '--action=jump=Go there', '--', 'tmux-fleet', `${text}${hint}`], route.env, this.actionMs);
    if (r.timedOut) return;
    if (r.code !== 0) return this.failed('desktop', `notify-send: ${oneLineText(r.stderr || `exit ${r.code}`, 200)}`);
    if (r.stdout.trim() === 'jump' && world.jumpArgv.length > 0) {
      const client = [...world.clients].filter((c) => c.control !== '1').sort((a, b) => Number(b.activity) - Number(a.activity))[0];
      const jr = await runProcess([...world.jumpArgv, ...(client ? ['--client', client.name] : [])], this.io.env, this.commandMs);
      if (jr.code !== 0) this.failed('desktop', `the jump: ${oneLineText(jr.stderr || `exit ${jr.code}`, 200)}`);
    }
  }

  private async command(notices: readonly Notice[], text: string, world: NotifyWorld): Promise<void> {
    const first = notices[0] as Notice;
    this.record('command', text);
    const env = {
      ...this.io.env,
      FLEET_EVENT: notices.length === 1 ? first.kind : [...new Set(notices.map((n) => n.kind))].join(' '),
      FLEET_TEXT: text,
      FLEET_TASK: first.task ?? '',
      FLEET_SESSION: first.session ?? '',
      FLEET_AGENT: first.agent ?? '',
      FLEET_WHO: first.who,
      FLEET_COUNT: String(notices.length),
      FLEET_JUMP: world.jumpArgv.map(shellWord).join(' '),
    };
    const r = await runProcess(['/bin/sh', '-c', world.command], env, this.commandMs);
    if (r.timedOut) this.failed('command', `@fleet-notify-command ran over ${this.commandMs / 1000} s and was killed`);
    else if (r.code !== 0) this.failed('command', `@fleet-notify-command failed (exit ${r.code}): ${oneLineText(r.stderr, 200)}`);
  }
}

/** A word as a shell reads it back: quoted unless plain. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
