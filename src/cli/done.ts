// `tmux-fleet done <slug>`: finish a task (docs/ownership.md#done); `--gone`
// is `gc`. The plan is shown, the acceptance items confirmed one by one on a
// terminal (or all with --yes), then what was done is printed.
import type { Context } from '../context';
import { UsageError } from '../errors';
import { finishTask, type DonePreview, type DriverEnd } from '../actions/finish';
import { sid8 } from '../status/hop-text';
import { printable } from '../text';
import { branchLine, endLines, worktreeLine } from './end-text';
import { askYesNo, doneAsking, needTerminal, say } from './ask';
import type { Args } from './types';
import { writeStdout } from './output';

function driverLine(p: DonePreview): string {
  const d = p.driver;
  const who = d.owner ? `Driver ${sid8(d.owner)}` : 'Driver (pending)';
  if (!d.session) return `${who}: no tmux session${d.decision.liveness === 'gone' ? ' (gone)' : ''}`;
  if (d.self) return `${who} (you): asked to exit its own way once the rest is done`;
  return d.live ? `${who} in ${d.session}: asked to exit its own way, then its session closed` : `${who} is gone: its session ${d.session} is closed`;
}

/** How the Driver ended, as a line. */
export function driverEndLine(d: DriverEnd): string {
  const asked = d.asked ? `asked to exit (${d.asked}): ` : '';
  if (!d.closed) return `Driver ${asked}its session ${d.session} closes as it exits`;
  if (d.asked && d.exited) return `Driver ${asked}it exited in ${(d.ms / 1000).toFixed(1)} s; session ${d.session} ${d.killed ? 'closed' : 'closed with it'}`;
  if (d.asked) return `Driver ${asked}it had not exited after ${(d.ms / 1000).toFixed(1)} s; session ${d.session} closed`;
  return `session ${d.session} closed`;
}

export async function run(args: Args, ctx: Context): Promise<number> {
  if (args.gone) {
    if (args.slug !== undefined) throw new UsageError('done --gone takes no slug: it finishes every task whose Driver is gone (as gc does)');
    const gc = await import('./gc');
    return gc.run(args, ctx);
  }
  if (args.slug === undefined) throw new UsageError('done: missing <slug> (task slug), or --gone');
  const json = ctx.json;
  const confirmed: string[] = [];
  try {
    const r = await finishTask(ctx, args.slug, { merge: Boolean(args.merge), discard: Boolean(args.discard), force: Boolean(args.force), as: args.as }, async (p) => {
      say(printable(`done ${p.slug}${p.label ? ` (${p.label})` : ''}:`), json);
      for (const line of [driverLine(p), worktreeLine(p.plan), branchLine(p.plan), ...p.plan.notes]) say(printable(`  ${line}`), json);
      if (args.yes) {
        for (const item of p.acceptance) {
          confirmed.push(item);
          say(printable(`  accept: ${item} (--yes)`), json);
        }
        return true;
      }
      needTerminal(`done ${p.slug}`, '--yes');
      for (const item of p.acceptance) {
        if (!(await askYesNo(printable(`  accept: ${item}? [y/N] `), json))) return false;
        confirmed.push(item);
      }
      if (p.acceptance.length === 0 && !(await askYesNo(`  finish ${p.slug}? [y/N] `, json))) return false;
      return true;
    });
    if (json) {
      const { selfExit, ...rest } = r;
      writeStdout(`${JSON.stringify({ ...rest, confirmed, selfExit: selfExit ? { session: selfExit.session, asked: selfExit.how } : null })}\n`);
      await selfExit?.run();
      return 0;
    }
    const lines: string[] = [];
    if (r.driver) lines.push(driverEndLine(r.driver));
    lines.push(...endLines(r.plan, r.end));
    lines.push(`archived ${r.slug} (tmux-fleet reopen ${r.slug} brings it back)`);
    // The asker is the Driver: said first, done last (its keys end the command that asked).
    if (r.selfExit) lines.push(`Driver asked to exit${r.selfExit.how ? ` (${r.selfExit.how})` : ''}: its session ${r.selfExit.session} closes as it exits`);
    for (const l of lines) writeStdout(`${printable(`${r.slug}: ${l}`)}\n`);
    await r.selfExit?.run();
    return 0;
  } finally {
    doneAsking();
  }
}
