// `tmux-fleet takeover <slug> [--as <sid>] [--force]`: the asker becomes the
// Driver. The judge runs under the task's lock, so nothing can change between
// the verdict and the write.
//
// Refused (exit 9, no change) without --force while the current owner may be
// live: a named owner that is live or whose liveness is unknown, and a pending
// task whose spawned session is booting (nonce present, no stamp yet) or whose
// session cannot be read (tmux error). A pending task whose session is gone or
// carries another nonce has no Driver to protect, and a task written before
// nonces has nobody named: those are taken without --force.
import { registryDir, type Context } from '../context';
import { ExitWith, FleetError, UsageError } from '../errors';
import { readRegistry } from '../registry/reader';
import { nudgeSupervisors } from '../nudge';
import { socketPathFromTmuxEnv } from '../tmux/client';
import { ownerSid } from '../tasks/schema';
import { assertSlug } from '../tasks/slug';
import { noSuchTask, updateTask } from '../tasks/store';
import { Tmux } from '../tmux/client';
import type { Decision } from './judge';
import { askerWithoutTmux, judgeLoaded, loadForJudge, resolveAsker, type Asker } from './owner';
import { liveRowOf, withProcess } from './stamp';

export interface TakeoverResult {
  slug: string;
  asker: string;
  /** Nothing to do: the asker already owns the task. */
  already: boolean;
  from: string;
  epoch: number;
  reason: 'takeover' | 'force' | null;
  /** The verdict the asker had before. */
  before: Decision;
}

/** Whether the decision leaves a Driver that may be live (so a takeover needs --force). */
export function mayBeLive(d: Decision): boolean {
  if (d.verdict === 9) return d.liveness !== 'gone';
  return d.code === 'booting' || d.code === 'spawning' || d.code === 'tmux-error';
}

export async function takeover(ctx: Context, slugArg: unknown, opts: { as?: unknown; force?: boolean }): Promise<TakeoverResult> {
  const slug = assertSlug(slugArg);
  const tmux = new Tmux(ctx.socket);
  const known = askerWithoutTmux(opts.as, ctx.env);
  // A task that does not exist is said before an asker is asked for: the slug is what is wrong.
  const loaded = await loadForJudge(ctx.home, slug);
  if (!loaded.task && !loaded.taskError) throw await noSuchTask(ctx.home, slug);
  const asker: Asker = known ?? (await resolveAsker(tmux, undefined, ctx.env));
  if (asker.sid === '') {
    throw new UsageError('takeover: no asker: give --as <sid>, or run it where $CLAUDE_CODE_SESSION_ID is set or inside a stamped tmux session');
  }
  const registry = await readRegistry(registryDir(ctx.env));
  const row = await liveRowOf(registry.entries.map((e) => e.row), asker.sid);

  let result: TakeoverResult | null = null;
  let refused: Decision | null = null;
  await updateTask(ctx.home, slug, async (cur) => {
    if (!cur) throw await noSuchTask(ctx.home, slug);
    const j = await judgeLoaded(ctx, tmux, slug, { task: cur }, asker);
    const d = j.decision;
    const base = { slug, asker: asker.sid, before: d };
    if (d.verdict === 0) {
      result = { ...base, already: true, from: asker.sid, epoch: cur.driverEpoch ?? 0, reason: null };
      return null;
    }
    const guarded = mayBeLive(d);
    if (guarded && !opts.force) {
      refused = d;
      return null;
    }
    const from = ownerSid(cur) || (d.via === 'pane' && d.owner ? d.owner : '');
    const reason = guarded ? 'force' : 'takeover';
    const epoch = (cur.driverEpoch ?? 0) + 1;
    // The Driver's process, for the /clear proof.
    const next = withProcess(
      {
        ...cur,
        driverSid: asker.sid,
        priorDriverSid: from,
        driverEpoch: epoch,
        handovers: [
          ...(cur.handovers ?? []),
          { from, to: asker.sid, at: new Date().toISOString(), reason, ...(asker.session ? { pane: asker.session } : {}) },
        ],
      },
      row,
    );
    result = { ...base, already: false, from, epoch, reason };
    return next;
  });
  const no = refused as Decision | null;
  if (no) {
    const why = no.reason.split('; to take over on purpose')[0];
    throw new ExitWith(9, `takeover ${slug} refused, nothing changed: the current Driver may still be live (${why}); use --force to take it anyway`);
  }
  const done = result as TakeoverResult | null;
  if (!done) throw new FleetError(`takeover ${slug}: nothing was decided`);
  if (!done.already) nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  return done;
}
