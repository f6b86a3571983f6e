// tmux-fleet follow [<sid>] [--watch]: the hop chain of a session through Claude Code's registry.
import { registryDir, type Context } from '../context';
import { FleetError, UsageError } from '../errors';
import { describeFollow, hopToast } from '../registry/hop';
import { follow } from '../registry/follow';
import { liveRows } from '../registry/liveness';
import { followLive } from '../registry/live';
import { readRegistry } from '../registry/reader';
import { Tmux } from '../tmux';
import { paneSession } from '../tmux/pane';
import type { Args } from './types';
import { writeStdout, writeStderr } from './output';
import { printable } from '../text';

const out = (line: string) => writeStdout(`${line}\n`);

export async function run(args: Args, ctx: Context): Promise<number> {
  const tmux = new Tmux(ctx.socket);
  if (args.watch) {
    if (typeof args.sid === 'string') throw new UsageError('follow --watch follows every stamped session of the server; give no <sid>');
    return watch(tmux, ctx);
  }
  let sid = typeof args.sid === 'string' ? args.sid : '';
  if (!sid) {
    const pane = ctx.env.TMUX_PANE;
    if (!pane) throw new UsageError('follow: give a session id, or run it inside a stamped tmux session');
    const own = await paneSession(tmux, pane);
    if (!own) throw new FleetError(`follow: pane ${pane} not found on ${tmux.describeServer()}`);
    if (!own.stamp) throw new FleetError(`follow: tmux session "${own.session}" has no stamp (@claude_session_id); is the SessionStart hook installed? (tmux-fleet hooks install)`);
    sid = own.stamp;
  }
  const dir = registryDir(ctx.env);
  const snapshot = await readRegistry(dir);
  if (!snapshot.readable) throw new FleetError(`follow: cannot read the registry: ${snapshot.error}`);
  const f = follow(await liveRows(snapshot), sid);
  if (ctx.json) {
    const { base, attached, hops, stop, chain } = f;
    out(JSON.stringify({ base, attached, hops, stop, chain }));
  } else {
    out(describeFollow(f));
  }
  return f.chain.length > 0 ? 0 : 1;
}

async function watch(tmux: Tmux, ctx: Context): Promise<number> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('SIGHUP', stop);
  // It reports only: the status line's @fleet-hop and the toasts are the supervisor's.
  const why = await followLive({
    tmux,
    registry: registryDir(ctx.env),
    signal: ac.signal,
    onUpdate: (u, first) => {
      if (!first) return;
      for (const hop of u.sessions.values()) {
        if (ctx.json) {
          const { base, attached, hops, stop: s, chain } = hop.follow;
          out(JSON.stringify({ event: 'follow', session: hop.session, base, attached, hops, stop: s, chain }));
        } else out(`${printable(hop.session)}: ${describeFollow(hop.follow)}`);
      }
    },
    onEvent: (e) => {
      if (ctx.json) out(JSON.stringify({ event: e.kind, session: e.session, base: e.base, from: e.from, to: e.to, jobId: e.jobId }));
      else out(`${printable(e.session)}: ${hopToast(e).replace(/^fleet: /, '')}`);
    },
    onError: (err) => writeStderr(`tmux-fleet: follow --watch: ${printable(err instanceof Error ? err.message : String(err))}\n`),
  });
  if (why === 'server-gone' && !ctx.json) writeStderr(`tmux-fleet: follow --watch: ${tmux.describeServer()} went away\n`);
  return 0;
}
