// The judge's pane read, answered by the supervisor (SPEC sections 5 and 10).
//
// A pending task's verdict needs one fresh read of its session's nonce and
// stamp. Starting tmux for it costs a process; the supervisor of that server
// holds a control-mode client and makes the same read on a pipe. `owner` asks
// over a Unix socket in the run directory and, when nobody answers in time,
// makes the read itself: the answer is the same either way, only the cost
// differs. The supervisor never answers from memory: every reply is a read
// made after the question arrived.
//
// Protocol: one JSON line each way.
//   ask:   {"socketPath": <the server's socket path>, "session": <name>}
//   reply: {"line": "<nonce> <stamp>"} | {"tmuxError": <text>} | {"unavailable": <why>}
// The supervisor refuses a question about another server (a hash collision
// of file names, a stale socket): "unavailable", and the asker reads tmux.
import type { Server, Socket } from 'node:net';
import { unlink } from '../fs-async';
import { parseNonceStamp, type PaneRead } from '../tmux/ownership-reads';

/** How long `owner` waits for the supervisor before reading tmux itself. */
export const ASK_TIMEOUT_MS = 1500;
/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;
/** A question is a short line: anything longer is not one. */
const MAX_QUESTION = 4096;

export type PaneReadReply = { line: string } | { tmuxError: string } | { unavailable: string };

export interface PaneReadQuestion {
  socketPath: string;
  session: string;
}

export function parseQuestion(text: string): PaneReadQuestion | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return null;
    const { socketPath, session } = v as Record<string, unknown>;
    if (typeof socketPath !== 'string' || typeof session !== 'string' || session === '') return null;
    return { socketPath, session };
  } catch {
    return null;
  }
}

/** A reply as the judge uses it: a pane read, or null (no answer: read tmux directly). */
export function parseReply(text: string): PaneRead | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return null;
    const r = v as Record<string, unknown>;
    if (typeof r.line === 'string') return parseNonceStamp(r.line);
    if (typeof r.tmuxError === 'string') return { tmuxError: r.tmuxError };
    return null;
  } catch {
    return null;
  }
}

export function socketPathFits(file: string): boolean {
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH;
}

/**
 * Asks the supervisor listening on `file` for the pane read of `session` on
 * the server at `socketPath`. Null when there is no answer (no supervisor,
 * a stale socket, a refusal, a timeout): the caller reads tmux itself.
 */
export async function askPaneRead(file: string, socketPath: string, session: string, timeoutMs = ASK_TIMEOUT_MS): Promise<PaneRead | null> {
  if (!socketPathFits(file)) return null;
  // Loaded here, not at start-up: a decided task never needs a socket.
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    let settled = false;
    let data = '';
    const socket = connect(file);
    const finish = (r: PaneRead | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('error', () => finish(null));
    socket.on('connect', () => socket.write(`${JSON.stringify({ socketPath, session })}\n`));
    socket.on('data', (chunk: string) => {
      data += chunk;
      const i = data.indexOf('\n');
      if (i !== -1) finish(parseReply(data.slice(0, i)));
      else if (data.length > MAX_QUESTION) finish(null);
    });
    socket.on('end', () => finish(null));
  });
}

export interface PaneReadServer {
  close(): Promise<void>;
}

/**
 * Serves pane reads of the server at `socketPath` on `file` until closed.
 * `read` makes the read (the supervisor's control client). Null when the path
 * is too long for a Unix socket: `owner` then always reads tmux itself.
 */
export async function servePaneReads(
  file: string,
  socketPath: string,
  read: (session: string) => Promise<PaneReadReply>,
): Promise<PaneReadServer | null> {
  if (!socketPathFits(file)) return null;
  const { createServer } = await import('node:net');
  // A file left by a supervisor of this server that died: this one holds the pid file now.
  await unlink(file).catch(() => undefined);
  const server: Server = createServer((socket: Socket) => {
    let data = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      data += chunk;
      const i = data.indexOf('\n');
      if (i === -1) {
        if (data.length > MAX_QUESTION) socket.destroy();
        return;
      }
      socket.removeAllListeners('data');
      const q = parseQuestion(data.slice(0, i));
      const reply: Promise<PaneReadReply> = !q
        ? Promise.resolve({ unavailable: 'not a question' })
        : q.socketPath !== socketPath
          ? Promise.resolve({ unavailable: `this supervisor serves ${socketPath}` })
          : read(q.session).catch((err: unknown) => ({ unavailable: err instanceof Error ? err.message : String(err) }));
      void reply.then((r) => socket.end(`${JSON.stringify(r)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => undefined);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // close() waits for open connections; a reply is already on its way or the asker gave up.
        void unlink(file).catch(() => undefined);
      }),
  };
}
