// `tmux-fleet attention`: who waits for the user (docs/status.md#attention).
import { registryDir, type Context } from '../context';
import { readDashboardData, fleetWaiters } from '../status/agents';
import { jumpToLongestWait } from '../dashboard/jobs';
import { Tmux } from '../tmux';
import { assertVerdictsTellable } from '../fleet/read';
import { printable } from '../text';
import type { Args } from './types';
import { writeStdout } from './output';

/** Who waits for the user across the fleet, longest first; --jump goes to the first (the attention key). */
export async function run(args: Args, ctx: Context): Promise<number> {
  const tmux = new Tmux(ctx.socket);
  const registry = registryDir(ctx.env);
  const client = (typeof args.client === 'string' && args.client) || ctx.env.TMUX_FLEET_CLIENT || undefined;
  if (args.jump) {
    const jump = await jumpToLongestWait(tmux, ctx.home, registry, client);
    if (ctx.json) writeStdout(`${JSON.stringify(jump)}\n`);
    else if (jump.kind === 'none') writeStdout('no agent waits for you\n');
    else if (jump.kind === 'session') writeStdout(`${printable(jump.who)}: switched to ${printable(jump.session)}${jump.unseen ? ' (it finished while nobody looked)' : ''}\n`);
    else writeStdout(`${printable(jump.who)}: opened in ${printable(jump.session)}\n`);
    return 0;
  }
  const data = await readDashboardData(tmux, ctx.home, registry);
  assertVerdictsTellable(data.view, tmux, 'attention');
  const waiters = fleetWaiters(data.view, data.agents);
  if (ctx.json) {
    writeStdout(`${JSON.stringify({ waiting: waiters.map((w) => ({ who: w.who, what: w.what, since: Number.isFinite(w.since) ? new Date(w.since).toISOString() : null, target: w.target })) })}\n`);
  } else if (waiters.length === 0) {
    writeStdout('no agent waits for you\n');
  } else {
    for (const w of waiters) writeStdout(`${printable(w.who)} waits: ${printable(w.what)}\n`);
  }
  return 0;
}
