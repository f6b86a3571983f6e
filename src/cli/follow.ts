// tmux-fleet follow [<sid>] [--watch]: the hop chain of a session through Claude Code's registry.
// <sid> is a session id, a unique start of one (the tool prints them cut to 8 or 4), or a tmux session name (its stamp).
import { registryDir, type Context } from '../context';
import { FleetError, UsageError } from '../errors';
import { describeFollow, hopToast, sid8 } from '../status/hop-text';
import { follow } from '../registry/follow';
import { attachJobStates } from '../registry/jobs';
import { liveRows, type LiveRow } from '../registry/liveness';
import { followLive } from '../status/follow-watch';
import { readRegistry } from '../registry/reader';
import { Tmux } from '../tmux';
import { sessionTarget } from '../tmux/args';
import { paneSession } from '../tmux/pane';
import { NONCE_STAMP_FORMAT, parseNonceStamp, readStamps, type StampsRead } from '../tmux/session-marks';
import { agentProcessLiveness, parseAgentProcess } from '../agents/agent-process';
import { AGENT_NAMES } from '../agents/kind';
import { explainMissingStamp } from '../doctor/checks';
import { paneToRead } from '../ownership/judge';
import { ownerSid } from '../tasks/schema';
import { isValidSlug } from '../tasks/slug';
import { readTask } from '../tasks/store';
import type { Args } from './types';
import { writeStdout, writeStderr } from './output';
import { echoInput, printable } from '../text';

const out = (line: string) => writeStdout(`${line}\n`);

export async function run(args: Args, ctx: Context): Promise<number> {
  const tmux = new Tmux(ctx.socket);
  const given = typeof args.sid === 'string' ? args.sid : '';
  const dir = registryDir(ctx.env);
  const snapshot = await readRegistry(dir);
  const rows = snapshot.readable ? attachJobStates(await liveRows(snapshot), dir) : [];
  const noStamp = async (session: string) =>
    new FleetError(`follow: tmux session "${session}" carries no stamp (@claude_session_id): ${await explainMissingStamp(ctx, tmux, session, rows, snapshot.readable)}`);
  // Every stamp of the server, read once when asked: agents that write no registry row here are known by them.
  let stamps: Promise<StampsRead | null> | null = null;
  const readStampsOnce = () => (stamps ??= readStamps(tmux));
  const resolve = (g: string) => resolveSid(g, rows, tmux, ctx.home, noStamp, readStampsOnce);
  if (args.watch) return watch(tmux, ctx, given ? await resolve(given) : null);
  let sid = given ? await resolve(given) : '';
  if (!sid) {
    const pane = ctx.env.TMUX_PANE;
    if (!pane) throw new UsageError('follow: give a session id, a task or a tmux session, or run it inside a stamped tmux session');
    const own = await paneSession(tmux, pane);
    if (!own) throw new FleetError(`follow: pane ${pane} not found on ${tmux.describeServer()}`);
    if (!own.stamp) throw await noStamp(own.session);
    sid = own.stamp;
  }
  if (!snapshot.readable) throw new FleetError(`follow: cannot read the registry: ${snapshot.error}`);
  const f = follow(rows, sid);
  // No row: an agent that parks nothing (Codex CLI, Gemini CLI, another CLI agent) has no chain; where its work is, is the answer.
  const parksNothing = f.chain.length === 0 ? agentOfStamp(sid, await readStampsOnce()) : null;
  if (parksNothing) {
    if (ctx.json) {
      const { base, attached, hops, stop, chain } = f;
      out(JSON.stringify({ base, attached, hops, stop, chain, ...parksNothing }));
    } else out(describeParksNothing(sid, parksNothing));
    return 0;
  }
  if (ctx.json) {
    const { base, attached, hops, stop, chain } = f;
    out(JSON.stringify({ base, attached, hops, stop, chain }));
  } else if (f.chain.length === 0 && given !== '' && sid === given) {
    // Said whole: what was given may be a mistyped session name, not an id to cut to 8.
    out(`${echoInput(given)}: no registry row holds this session id, none starts with it, no tmux session on ${tmux.describeServer()} has this name, and no task has this slug`);
  } else {
    out(describeFollow(f));
  }
  return f.chain.length > 0 ? 0 : 1;
}

/**
 * The session id a <sid> argument means: a session id a registry row holds;
 * else the stamp of the tmux session of that name; else the Driver of the task
 * of that slug; else the one session id that starts with it (several: a usage
 * error naming them); else itself. `noStamp`: the error for a session with no stamp.
 */
export async function resolveSid(
  given: string,
  rows: readonly LiveRow[],
  tmux: Tmux,
  home: string,
  noStamp: (session: string) => Promise<Error>,
  stamps: () => Promise<StampsRead | null> = () => Promise.resolve(null),
): Promise<string> {
  if (rows.some((r) => r.row.sessionId === given)) return given;
  const named = await paneSession(tmux, sessionTarget(given));
  if (named && named.session === given) {
    if (!named.stamp) throw await noStamp(given);
    return named.stamp;
  }
  const driver = isValidSlug(given) ? await taskDriver(tmux, home, given) : null;
  if (driver !== null) return driver;
  // The ids the registry holds, and the stamps of the server (agents that write no row here).
  const known = [...rows.map((r) => r.row.sessionId), ...((await stamps())?.keys() ?? [])];
  const starting = [...new Set(known.filter((id) => id.startsWith(given)))].sort();
  if (starting.length === 1) return starting[0] as string;
  if (starting.length > 1) {
    const shown = starting.slice(0, 8).join(', ') + (starting.length > 8 ? `, … (${starting.length} in all)` : '');
    throw new UsageError(`follow: "${given}" starts ${starting.length} session ids: ${shown}; give more of it`);
  }
  return given;
}

/**
 * The Driver of task `slug`: its owner; while pending, the stamp of the session
 * the spawn marked (carrying the task's nonce). Null when no such task.
 */
async function taskDriver(tmux: Tmux, home: string, slug: string): Promise<string | null> {
  const task = await readTask(home, slug);
  if (!task) return null;
  const owner = ownerSid(task);
  if (owner) return owner;
  const pane = paneToRead(task);
  if (pane === null) throw new FleetError(`follow: task ${slug} is pending and names no spawned session to read`);
  const read = await tmux.tryRun(['display-message', '-p', '-t', sessionTarget(pane), NONCE_STAMP_FORMAT]);
  const marks = parseNonceStamp(read.stdout.replace(/\n$/, ''));
  if (read.exitCode !== 0 || marks.nonce !== task.spawnNonce) throw new FleetError(`follow: task ${slug} is pending and tmux session ${pane} is not its spawned Driver (gone or recreated)`);
  if (!marks.stamp) throw new FleetError(`follow: task ${slug} is pending: its Driver in tmux session ${pane} has not stamped yet`);
  return marks.stamp;
}

/** An agent a stamp recorded that writes no registry row here: which one, where it runs, whether its process runs. */
interface ParksNothing {
  agent: 'codex' | 'gemini' | 'other';
  session: string;
  liveness: 'live' | 'gone';
}

/** The agent the server's stamps recorded with `sid`, when it is one that parks no work (not Claude Code); else null. */
function agentOfStamp(sid: string, stamps: StampsRead | null): ParksNothing | null {
  const seen = stamps?.get(sid);
  if (!seen) return null;
  let found: ParksNothing | null = null;
  seen.agents.forEach((text, i) => {
    const p = parseAgentProcess(text);
    if (!p || p.kind === 'claude') return;
    const liveness = agentProcessLiveness(p);
    if (found === null || (found.liveness === 'gone' && liveness === 'live')) found = { agent: p.kind, session: seen.sessions[i] ?? '', liveness };
  });
  return found;
}

/** `019a0000: Codex CLI in tmux session op-tc (live); only Claude Code parks its work on a background job, so …`. */
function describeParksNothing(sid: string, p: ParksNothing): string {
  const name = p.agent === 'other' ? 'another agent than Claude Code' : AGENT_NAMES[p.agent];
  const whose = p.agent === 'other' ? "that agent's" : `${name}'s`;
  return printable(`${sid8(sid)}: ${name} in tmux session ${p.session} (${p.liveness}); only Claude Code parks its work on a background job, so ${whose} work stays there: nothing to follow`);
}

/** Follows every stamped session of the server live, or only the sessions stamped `only`. */
async function watch(tmux: Tmux, ctx: Context, only: string | null): Promise<number> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('SIGHUP', stop);
  // It reports only: the status line's @fleet-hop and the toasts are the supervisor's.
  const why = await followLive({
    tmux,
    home: ctx.home,
    registry: registryDir(ctx.env),
    signal: ac.signal,
    onUpdate: (u, first) => {
      if (!first) return;
      const hops = [...u.sessions.values()].filter((h) => only === null || h.base === only);
      if (only !== null && hops.length === 0) {
        writeStderr(`tmux-fleet: follow --watch: no tmux session on ${tmux.describeServer()} carries ${sid8(only)} yet; its changes are reported once one does\n`);
      }
      for (const hop of hops) {
        if (ctx.json) {
          const { base, attached, hops, stop: s, chain } = hop.follow;
          out(JSON.stringify({ event: 'follow', session: hop.session, base, attached, hops, stop: s, chain }));
        } else out(`${printable(hop.session)}: ${describeFollow(hop.follow)}`);
      }
    },
    onEvent: (e) => {
      if (only !== null && e.base !== only) return;
      if (ctx.json) out(JSON.stringify({ event: e.kind, session: e.session, base: e.base, from: e.from, to: e.to, jobId: e.jobId }));
      else out(`${printable(e.session)}: ${hopToast(e).replace(/^fleet: /, '')}`);
    },
    onError: (err) => writeStderr(`tmux-fleet: follow --watch: ${printable(err instanceof Error ? err.message : String(err))}\n`),
  });
  if (why === 'server-gone' && !ctx.json) writeStderr(`tmux-fleet: follow --watch: ${tmux.describeServer()} went away\n`);
  return 0;
}
