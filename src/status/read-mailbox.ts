// tmux reads made by the supervisor for short-lived commands (SPEC sections 5
// and 10).
//
// `owner` on a pending task needs one fresh read of its session's nonce and
// stamp (and sometimes the asker's pane, or every session's stamp for a
// liveness). Starting tmux for it costs a process, about 0.6x `node -e 0`
// with execa. The supervisor of that server holds a control-mode client and
// makes the same reads on a pipe. A command asks through a mailbox directory
// in the run directory and, when no answer comes in time, runs tmux itself:
// the answer is the same either way, only the cost differs. The supervisor
// never answers from memory: every answer is a read made after the question
// arrived.
//
// Why files and not a Unix socket: loading node:net (and the stream modules
// under it) and connecting cost `owner` about 0.09x `node -e 0`; a file
// written, a directory watch and a file read cost about 0.03x (measured, see
// bench/results.md). Both ends wait on inotify, never on a timer loop.
//
// The mailbox (mode 0700, like the run directory):
//   <id>.q  a question, renamed into place whole: {"socketPath", "commands": [[...argv], ...]}
//   <id>.a  its answer, renamed into place whole:
//           {"stdout", "stderr", "exitCode"} as a tmux chain of those commands
//           would give | {"unavailable": <why>} (then the asker runs tmux)
// Only reads are answered: `display-message -p` and `list-sessions`. The asker
// removes its answer, the supervisor its questions; the supervisor also removes
// what an asker that gave up left behind. A question about another server is
// refused.
import { readFileSync, readdirSync, renameSync, statSync, unlinkSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { mkdir, readdir, rm } from '../fs-async';
import type { Context } from '../context';
import type { Tmux, TmuxReads, TmuxResult } from '../tmux/client';
import { locateReadMailbox } from './runtime';

/** How long a command waits for the supervisor before running tmux itself. */
export const ASK_TIMEOUT_MS = 1500;
/** Files older than this in the mailbox belong to nobody any more. */
const ABANDONED_MS = 30_000;
const ID_RE = /^[A-Za-z0-9-]{1,64}$/;
const MAX_COMMANDS = 4;

export type ReadsAnswer = TmuxResult | { unavailable: string };

export interface ReadsQuestion {
  socketPath: string;
  commands: string[][];
}

const isArgv = (c: unknown): c is string[] => Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === 'string');

export function parseQuestion(text: string): ReadsQuestion | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return null;
    const { socketPath, commands } = v as Record<string, unknown>;
    if (typeof socketPath !== 'string' || !Array.isArray(commands)) return null;
    if (commands.length === 0 || commands.length > MAX_COMMANDS || !commands.every(isArgv)) return null;
    return { socketPath, commands };
  } catch {
    return null;
  }
}

/**
 * Reads only: what the supervisor agrees to run for an asker. A format that
 * would run a shell command (`#(...)`) is no read: none of ours holds one.
 */
export function isReadCommand(command: readonly string[]): boolean {
  if (command.some((a) => a.includes('#('))) return false;
  if (command[0] === 'list-sessions') return true;
  return command[0] === 'display-message' && command.includes('-p');
}

/** An answer as a tmux result, or null (no answer: run tmux directly). */
export function parseAnswer(text: string): TmuxResult | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return null;
    const { stdout, stderr, exitCode } = v as Record<string, unknown>;
    if (typeof stdout !== 'string' || typeof stderr !== 'string' || typeof exitCode !== 'number') return null;
    return { stdout, stderr, exitCode };
  } catch {
    return null;
  }
}

/** Writes a file under a temporary name, then renames it: a watcher never sees half of it. */
function placeWhole(dir: string, name: string, text: string): void {
  const tmp = join(dir, `${name}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, join(dir, name));
}

function takeFile(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8');
    unlinkSync(file);
    return text;
  } catch {
    return null;
  }
}

/**
 * Asks the supervisor whose mailbox is `dir` to run `commands` (as one chain
 * would) on the server at `socketPath`. Null when there is no answer (no
 * mailbox, a refusal, a timeout, a watch that cannot be set): the caller runs
 * tmux. The caller checks first that the supervisor runs.
 */
export function askReads(
  dir: string,
  socketPath: string,
  commands: readonly (readonly string[])[],
  timeoutMs = ASK_TIMEOUT_MS,
): Promise<TmuxResult | null> {
  const id = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const answer = join(dir, `${id}.a`);
  return new Promise((resolve) => {
    let watcher: FSWatcher | null = null;
    let timer: NodeJS.Timeout | null = null;
    const finish = (r: TmuxResult | null) => {
      if (timer) clearTimeout(timer);
      watcher?.close();
      watcher = null;
      resolve(r);
    };
    const check = () => {
      const text = takeFile(answer);
      if (text !== null) finish(parseAnswer(text));
    };
    try {
      // The watch goes in before the question: the answer cannot come unseen.
      watcher = watch(dir, (_event, name) => {
        if (name === null || String(name) === `${id}.a`) check();
      });
      watcher.on('error', () => finish(null));
      placeWhole(dir, `${id}.q`, JSON.stringify({ socketPath, commands }));
    } catch {
      finish(null);
      return;
    }
    timer = setTimeout(() => {
      // A last look (a watch can coalesce events), then give up and take the question back.
      const text = takeFile(answer);
      takeFile(join(dir, `${id}.q`));
      finish(text === null ? null : parseAnswer(text));
    }, timeoutMs);
  });
}

/** Where a running supervisor takes questions for one server. */
export interface Mailbox {
  dir: string;
  socketPath: string;
}

/**
 * Reads through the supervisor, falling back to `direct` (tmux through execa)
 * for any read it does not answer. The mailbox is located on the first read
 * (a command that needs none pays nothing); after one unanswered question the
 * supervisor is not asked again by this process.
 */
export class SupervisedReads implements TmuxReads {
  private box: Mailbox | null | undefined;

  constructor(
    private readonly locate: () => Mailbox | null,
    private readonly direct: TmuxReads,
  ) {}

  tryRun(args: readonly string[]): Promise<TmuxResult> {
    return this.tryChain([args]);
  }

  async tryChain(commands: readonly (readonly string[])[]): Promise<TmuxResult> {
    if (this.box === undefined) this.box = this.locate();
    if (this.box && commands.every(isReadCommand)) {
      const r = await askReads(this.box.dir, this.box.socketPath, commands);
      if (r) return r;
      this.box = null;
    }
    return this.direct.tryChain(commands);
  }
}

/**
 * The tmux reads of a command: made by the server's supervisor through its
 * control client when one runs (no process started), else by running tmux.
 */
export function readsFor(ctx: Context, tmux: Tmux): TmuxReads {
  return new SupervisedReads(() => locateReadMailbox(ctx.home, ctx.socket, ctx.env), tmux);
}

export interface ReadsServer {
  close(): Promise<void>;
  /** Removes what askers that gave up left behind (the supervisor's poll calls it). */
  sweep(): void;
}

/**
 * Answers questions in the mailbox `dir` (created, emptied) until closed;
 * `run` makes the reads (the supervisor's control client) and answers null
 * when it cannot. The mailbox is removed on close, so that no asker writes to
 * a supervisor that has gone.
 */
export async function serveReads(
  dir: string,
  socketPath: string,
  run: (commands: string[][]) => Promise<TmuxResult | null>,
): Promise<ReadsServer> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const answerOne = (name: string) => {
    const id = name.slice(0, -2);
    if (!ID_RE.test(id)) return;
    const text = takeFile(join(dir, name));
    if (text === null) return; // answered already (the unlink fires the watch again)
    const q = parseQuestion(text);
    const answer: Promise<ReadsAnswer> = !q
      ? Promise.resolve({ unavailable: 'not a question' })
      : q.socketPath !== socketPath
        ? Promise.resolve({ unavailable: `this supervisor serves ${socketPath}` })
        : !q.commands.every(isReadCommand)
          ? Promise.resolve({ unavailable: 'only reads are answered' })
          : run(q.commands).then(
              (r) => r ?? { unavailable: 'not answered through the control client' },
              (err: unknown) => ({ unavailable: err instanceof Error ? err.message : String(err) }),
            );
    void answer.then((a) => {
      try {
        placeWhole(dir, `${id}.a`, JSON.stringify(a));
      } catch {
        // The mailbox went away (the supervisor stops): the asker runs tmux.
      }
    });
  };
  const watcher = watch(dir, (_event, name) => {
    if (name !== null && String(name).endsWith('.q')) answerOne(String(name));
    else if (name === null) for (const n of readdirSync(dir)) if (n.endsWith('.q')) answerOne(n);
  });
  watcher.on('error', () => undefined);
  // A question may have come between the mkdir and the watch.
  for (const n of await readdir(dir)) if (n.endsWith('.q')) answerOne(n);
  return {
    sweep() {
      try {
        const now = Date.now();
        for (const n of readdirSync(dir)) {
          const f = join(dir, n);
          if (now - statSync(f).mtimeMs > ABANDONED_MS) unlinkSync(f);
        }
      } catch {
        // gone meanwhile
      }
    },
    async close() {
      watcher.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
