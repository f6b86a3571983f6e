// `tmux-fleet gc` (and `done --gone`): archive every task whose Driver is gone
// and whose worktree is clean and merged, after a list and a confirmation
// (docs/ownership.md#gc).
import type { Context } from '../context';
import { runGc } from '../actions/finish';
import { printable } from '../text';
import { branchLine, endLines, worktreeLine } from './end-text';
import { askYesNo, doneAsking, needTerminal, say } from './ask';
import type { Args } from './types';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const json = ctx.json;
  try {
    const r = await runGc(ctx, async (p) => {
      say(`gc: ${p.candidates.length} task${p.candidates.length === 1 ? '' : 's'} to archive:`, json);
      for (const c of p.candidates) say(printable(`  ${c.slug}${c.label ? ` (${c.label})` : ''}: ${c.gone}; ${worktreeLine(c.plan)}; ${branchLine(c.plan)}${c.session ? `; its session ${c.session} closed` : ''}`), json);
      if (args.yes) return true;
      needTerminal('gc', '--yes');
      return askYesNo(`archive ${p.candidates.length === 1 ? 'it' : `these ${p.candidates.length}`}? [y/N] `, json);
    });
    if (json) {
      writeStdout(`${JSON.stringify({ archived: r.archived, failed: r.failed, kept: r.kept })}\n`);
      return r.failed.length > 0 ? 1 : 0;
    }
    if (r.candidates.length === 0) writeStdout(`gc: nothing to archive (${r.kept.length} task${r.kept.length === 1 ? '' : 's'} kept: a live Driver, or a worktree that is not clean and merged)\n`);
    for (const a of r.archived) {
      for (const l of endLines(a.plan, a.end)) writeStdout(`${printable(`${a.slug}: ${l}`)}\n`);
      writeStdout(`${printable(`${a.slug}: archived`)}\n`);
    }
    for (const f of r.failed) writeStdout(`${printable(`${f.slug}: not archived: ${f.why}`)}\n`);
    return r.failed.length > 0 ? 1 : 0;
  } finally {
    doneAsking();
  }
}
