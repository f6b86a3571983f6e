// The agents under the panes that write no registry row
// (docs/ownership.md#the-stamp-without-the-hook), proven from their processes:
// - Codex CLI: the thread lock its process holds, an flock on
//   <codex home>/thread-writer-locks/<session id>.lock (about 5 s after start,
//   before any prompt); after /clear it holds the new thread's lock as well,
//   so the newest lock is the current session. With its app-server daemon the
//   daemon holds every lock: the pane's agent cannot be proven (unprovable).
// - Gemini CLI: the --session-id of its argv (spawn passes one), once its chat
//   file of that id exists. After an in-app /clear or /resume the argv is
//   stale: such a row only stamps an unstamped session (firstStampOnly).
// - Claude Code of another home ($CLAUDE_CONFIG_DIR in its environment): its
//   own registry row, <home>/sessions/<pid>.json, read as the supervisor's
//   registry is (a directory others can write to is not read: unprovable).
// Each process is looked at once (its kind, home, argv), kept while it runs;
// only what changes is read again (Codex's locks, a chat file not yet written).
// Every file here is read by the safe reader (no link, no FIFO, capped) or, for
// a chat, its first bytes only; locks from the agent's own fdinfo, never from
// /proc/locks (docs/ownership.md#the-stamp-without-the-hook).
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFileBytes, readRegularFileHead } from '../fs-safe';
import { fdHoldsLock, listedPids, readFds, readProcStat, readUptimeMs } from '../proc';
import { isValidSid } from '../sid';
import type { LiveRow } from '../registry/liveness';
import { readRowFile, registryRefusal } from '../registry/reader';
import { identifyAgent, lookAt, type AgentKind } from './kind';

/**
 * A row the proof takes: a registry row (Claude Code's), or one made for an
 * agent that writes no registry, from what its process shows
 * (below).
 */
export interface ProofRow extends LiveRow {
  /** The agent; registry rows are Claude Code's. */
  agent?: AgentKind;
  /** The id may be stale once stamped (Gemini's --session-id after an in-app /clear): it stamps an unstamped session only. */
  firstStampOnly?: boolean;
}

/** A session id Codex and Gemini write: a UUID. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOCK_RE = /\/thread-writer-locks\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.lock$/;
/** How long a Codex TUI may run without a thread lock before its daemon is taken to hold its threads. */
export const CODEX_DAEMON_GRACE_MS = 10_000;
/** How long a process that is no agent is looked at again (it may exec one). */
const YOUNG_MS = 30_000;
/** Processes walked under one pane, at most. */
const MAX_DESCENDANTS = 512;

/** Linux's USER_HZ. */
const CLOCK_TICKS = 100;

interface ProcEntry {
  ppid: number;
  start: number;
}

interface Classified {
  kind: AgentKind | null;
  daemon: boolean;
  /** The agent's environment variables that decide its home. */
  env: ReadonlyMap<string, string>;
  argv: readonly string[];
}

/** The session id in a UUID version 7 orders by time; any other UUID by its lock file's age. */
function uuidTime(sid: string): number | null {
  return sid[14] === '7' ? parseInt(sid.slice(0, 8) + sid.slice(9, 13), 16) : null;
}

/**
 * The sessions whose thread lock a Codex process holds (the lock file open, a
 * lock held through it), newest first. Only the process's own descriptors are
 * looked at: its fd links and, for a lock file, its fdinfo's `lock:` lines.
 */
export function codexThreadLocks(pid: number): string[] {
  const fds = readFds(pid);
  if (fds === null) return [];
  const found: { sid: string; at: number }[] = [];
  for (const { fd, target } of fds) {
    const m = LOCK_RE.exec(target);
    if (!m || !fdHoldsLock(pid, fd)) continue;
    try {
      found.push({ sid: m[1] as string, at: uuidTime(m[1] as string) ?? lstatSync(target).mtimeMs });
    } catch {
      /* the lock went meanwhile */
    }
  }
  return found.sort((a, b) => b.at - a.at || (a.sid < b.sid ? 1 : -1)).map((f) => f.sid);
}

/** Codex's home for a process: $CODEX_HOME in its environment, else its $HOME/.codex. */
export function codexHomeOf(env: ReadonlyMap<string, string>): string | null {
  const home = env.get('CODEX_HOME') || (env.get('HOME') ? join(env.get('HOME') as string, '.codex') : '');
  return home || null;
}

/** Gemini's directory for a process: .gemini under $GEMINI_CLI_HOME, else under its $HOME. */
export function geminiDirOf(env: ReadonlyMap<string, string>): string | null {
  const base = env.get('GEMINI_CLI_HOME') || env.get('HOME');
  return base ? join(base, '.gemini') : null;
}

/** Claude Code's directory for a process: $CLAUDE_CONFIG_DIR, else its $HOME/.claude. */
export function claudeDirOf(env: ReadonlyMap<string, string>): string | null {
  const dir = env.get('CLAUDE_CONFIG_DIR') || (env.get('HOME') ? join(env.get('HOME') as string, '.claude') : '');
  return dir || null;
}

/** A pid file is a line of JSON; more is not one. */
const MAX_PID_FILE_BYTES = 16 * 1024;

/**
 * The daemon of a Codex home that runs now: its pid file (a regular file, read
 * by the safe reader) names a process that still has the recorded start.
 */
export function codexDaemonPid(home: string): number | null {
  try {
    const text = readRegularFileBytes(join(home, 'app-server-daemon', 'daemon.pid'), MAX_PID_FILE_BYTES).toString('utf8');
    const raw = JSON.parse(text) as { pid?: unknown; processIdentity?: { startTicks?: unknown } };
    const pid = typeof raw.pid === 'number' ? raw.pid : NaN;
    const stat = readProcStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') return null;
    const want = raw.processIdentity?.startTicks;
    return typeof want !== 'number' || want === stat.startTicks ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The session id Gemini's argv names, when it is a UUID: `--session-id <id>`
 * (a new session, as spawn starts one), or `--resume <id>` (`-r`; a resume
 * goes on under the id it resumes: measured with 0.61.0, docs/ownership.md#restore),
 * each also as `--opt=<id>`. `--resume latest` or an index names none.
 */
export function geminiSessionArg(argv: readonly string[]): string | null {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    const eq = a.indexOf('=');
    const name = eq === -1 ? a : a.slice(0, eq);
    if (name !== '--session-id' && name !== '--resume' && name !== '-r') continue;
    const v = eq === -1 ? argv[i + 1] : a.slice(eq + 1);
    if (v !== undefined) return UUID_RE.test(v) ? v : null;
  }
  return null;
}

/** A chat's first line (its session id) is a few hundred bytes: no more of the file is read. */
const CHAT_HEAD_BYTES = 4096;
const CHAT_NAME_RE = /^session-.+-([0-9a-f]{8})\.jsonl$/;

/**
 * Gemini's chat files under <gemini dir>/tmp/<project>/chats (newest first),
 * with the session id each names in its first line. Chosen by name first (the
 * name ends with the id's first 8 characters: `sid` keeps only those), then
 * by lstat (regular files only: no link followed, no FIFO opened); of each,
 * only its first CHAT_HEAD_BYTES are read, whatever its size. `max`: stop once
 * that many are found (the newest first).
 */
export function geminiChats(dir: string, opts: { sid?: string; max?: number } = {}): { file: string; sid: string; mtimeMs: number }[] {
  const candidates: { file: string; id8: string; mtimeMs: number }[] = [];
  let projects: string[];
  try {
    projects = readdirSync(join(dir, 'tmp'));
  } catch {
    return [];
  }
  const want = opts.sid?.slice(0, 8);
  for (const p of projects) {
    const chats = join(dir, 'tmp', p, 'chats');
    let names: string[];
    try {
      names = readdirSync(chats);
    } catch {
      continue;
    }
    for (const n of names) {
      const id8 = CHAT_NAME_RE.exec(n)?.[1];
      if (id8 === undefined || (want !== undefined && id8 !== want)) continue;
      const file = join(chats, n);
      try {
        const st = lstatSync(file, { throwIfNoEntry: false });
        if (st?.isFile()) candidates.push({ file, id8, mtimeMs: st.mtimeMs });
      } catch {
        /* not ours to look at */
      }
    }
  }
  candidates.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const out: { file: string; sid: string; mtimeMs: number }[] = [];
  for (const c of candidates) {
    if (opts.max !== undefined && out.length >= opts.max) break;
    try {
      const head = readRegularFileHead(c.file, CHAT_HEAD_BYTES).bytes.toString('utf8');
      const sid = (JSON.parse(head.split('\n')[0] ?? '') as { sessionId?: unknown }).sessionId;
      if (typeof sid === 'string' && sid.slice(0, 8) === c.id8 && (opts.sid === undefined || sid === opts.sid)) out.push({ file: c.file, sid, mtimeMs: c.mtimeMs });
    } catch {
      /* half written, or not a chat (a FIFO or a link swapped in after the lstat is refused by the reader) */
    }
  }
  return out;
}

export interface PaneProcess {
  session: string;
  /** The pane's id (%N), when known: the agent's pane, whose title tells its state (src/agents/state.ts). */
  id?: string;
  pid: string;
  /** The session carries a stamp: a young process under an unstamped one may still become its agent. */
  stamped?: boolean;
}

/** What discovery found under the panes of one wake. */
export interface Discovery {
  /** Rows for the proof, one per agent process that holds a session id it proves. */
  rows: ProofRow[];
  /** The session whose panes each row was found under (a wake for a tmux change keeps the others' rows). */
  sessionOfRow: Map<ProofRow, string>;
  /** The nearest agent under each session's panes, as its process shows it, and the pane it runs in. */
  kinds: Map<string, { kind: AgentKind; pid: number; pane?: string }>;
  /** Sessions whose agent cannot be tied to them, with why and how to fix it. */
  unprovable: Map<string, string>;
  /** Some agent is still to be proven, or may change its id without a file the supervisor watches (Codex's /clear). */
  recheck: boolean;
}

export class AgentDiscovery {
  private readonly table = new Map<number, ProcEntry>();
  private readonly kinds = new Map<string, Classified>();
  private readonly firstSeen = new Map<string, number>();
  private readonly chatFound = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * What a process is, looked at once. A process that is no agent yet may
   * still become one: between fork and exec it is a copy of its parent (the
   * node that starts Codex's binary or Gemini's child), with the same pid and
   * start time. So a young process is looked at again until it is
   * YOUNG_MS old.
   */
  private classify(pid: number, start: number, up: number | null): Classified {
    const key = `${pid}:${start}`;
    let c = this.kinds.get(key);
    const young = up === null || up - (start / CLOCK_TICKS) * 1000 < YOUNG_MS;
    if (c === undefined || (c.kind === null && young)) {
      const look = lookAt(pid);
      const id = identifyAgent(look);
      const env = id ? (look.env() ?? new Map<string, string>()) : new Map<string, string>();
      c = { kind: id?.kind ?? null, daemon: id?.daemon ?? false, env, argv: look.argv ?? [] };
      this.kinds.set(key, c);
    }
    return c;
  }

  /** Brings the process table up to date: one listing of /proc, a stat of each new pid. */
  private refresh(): Map<number, number[]> | null {
    const listed = listedPids();
    if (listed === null) return null;
    for (const pid of [...this.table.keys()]) if (!listed.has(String(pid))) this.table.delete(pid);
    for (const name of listed) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (this.table.has(pid)) continue;
      const stat = readProcStat(pid);
      if (stat && stat.state !== 'Z' && stat.state !== 'X') this.table.set(pid, { ppid: stat.ppid, start: stat.startTicks });
    }
    const live = new Set([...this.table].map(([pid, e]) => `${pid}:${e.start}`));
    for (const key of [...this.kinds.keys()]) if (!live.has(key)) this.kinds.delete(key);
    const children = new Map<number, number[]>();
    for (const [pid, e] of this.table) {
      const list = children.get(e.ppid);
      if (list) list.push(pid);
      else children.set(e.ppid, [pid]);
    }
    return children;
  }

  /**
   * The agents under the given panes that write no registry row of their own
   * here. `registryPids`: processes the registry already has a row of.
   */
  discover(panes: readonly PaneProcess[], registryPids: ReadonlySet<number>): Discovery {
    const out: Discovery = { rows: [], sessionOfRow: new Map(), kinds: new Map(), unprovable: new Map(), recheck: false };
    if (panes.length === 0) return out;
    const children = this.refresh();
    if (children === null) return out;
    const now = this.now();
    const up = readUptimeMs();
    for (const pane of panes) {
      const root = Number(pane.pid);
      if (!Number.isInteger(root) || root <= 1 || !this.table.has(root)) continue;
      // Breadth first: the agent nearest the pane's process is the session's.
      const queue = [root];
      for (let i = 0; i < queue.length && queue.length < MAX_DESCENDANTS; i++) queue.push(...(children.get(queue[i] as number) ?? []));
      for (const pid of queue) {
        const entry = this.table.get(pid) as ProcEntry;
        const c = this.classify(pid, entry.start, up);
        // A process that may still exec an agent, under a pane whose agent is not proven yet: look again soon.
        if (c.kind === null && !pane.stamped && (up === null || up - (entry.start / CLOCK_TICKS) * 1000 < YOUNG_MS)) out.recheck = true;
        if (c.kind === null || c.daemon) continue;
        if (!out.kinds.has(pane.session)) out.kinds.set(pane.session, pane.id ? { kind: c.kind, pid, pane: pane.id } : { kind: c.kind, pid });
        const row = this.proofRow(pane, pid, entry.start, c, registryPids, now, up, out);
        if (row) {
          out.rows.push(row);
          out.sessionOfRow.set(row, pane.session);
        }
      }
    }
    return out;
  }

  private proofRow(
    pane: PaneProcess,
    pid: number,
    start: number,
    c: Classified,
    registryPids: ReadonlySet<number>,
    now: number,
    up: number | null,
    out: Discovery,
  ): ProofRow | null {
    const row = (sid: string, extra: Partial<ProofRow> = {}): ProofRow => {
      const key = `${pid}:${start}:${sid}`;
      if (!this.firstSeen.has(key)) this.firstSeen.set(key, now);
      return {
        row: { pid, sessionId: sid, kind: 'interactive', procStart: String(start), updatedAt: this.firstSeen.get(key) },
        liveness: 'live',
        alive: true,
        startTicks: start,
        agent: c.kind as AgentKind,
        ...extra,
      };
    };
    if (c.kind === 'codex') {
      out.recheck = true;
      const sid = codexThreadLocks(pid)[0];
      if (sid) return row(sid);
      const home = codexHomeOf(c.env);
      const daemon = home ? codexDaemonPid(home) : null;
      const age = up === null ? 0 : up - (start / CLOCK_TICKS) * 1000;
      if (daemon !== null && age >= CODEX_DAEMON_GRACE_MS) {
        out.unprovable.set(
          pane.session,
          `Codex CLI (pid ${pid}) runs its threads in its app-server daemon (pid ${daemon}): no pane can be tied to a thread in that mode; set [features] daemon_auto_start = false in ${join(home as string, 'config.toml')} (or run codex --no-daemon), then restart it`,
        );
      }
      return null;
    }
    if (c.kind === 'gemini') {
      const sid = geminiSessionArg(c.argv);
      const dir = geminiDirOf(c.env);
      if (!sid || !dir) return null;
      const key = `${pid}:${start}:${sid}`;
      if (!this.chatFound.has(key)) {
        if (geminiChats(dir, { sid, max: 1 }).length === 0) {
          // Written at start: looked for again while the session waits for its stamp.
          if (!pane.stamped) out.recheck = true;
          return null;
        }
        this.chatFound.add(key);
      }
      return row(sid, { firstStampOnly: true });
    }
    if (c.kind === 'claude' && !registryPids.has(pid)) {
      // Another home than the supervisor's registry: the row Claude Code writes there, read as that registry would be.
      const dir = claudeDirOf(c.env);
      if (!dir) return null;
      const sessions = join(dir, 'sessions');
      const refused = registryRefusal(sessions);
      if (refused) {
        out.unprovable.set(pane.session, `Claude Code (pid ${pid}) keeps its session row in another home's registry: ${refused.error}`);
        return null;
      }
      const read = readRowFile(join(sessions, `${pid}.json`));
      if (!('entry' in read)) {
        // Claude Code may write its row a moment after it starts (or be caught mid-write): looked for again while the session waits for its stamp.
        if (!pane.stamped) out.recheck = true;
        return null;
      }
      const found = read.entry.row;
      if (found.pid !== pid || !isValidSid(found.sessionId)) return null;
      if (found.procStart !== undefined && /^\d+$/.test(found.procStart.trim()) && Number(found.procStart) !== start) return null;
      if (found.kind !== undefined && found.kind !== 'interactive') return null;
      return { row: found, liveness: 'live', alive: true, startTicks: start, agent: 'claude' };
    }
    return null;
  }
}
