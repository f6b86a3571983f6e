// tmux-fleet hooks install|uninstall|status
//   install    merge the SessionStart hook `'<this helper>' stamp` into
//              ${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json (backup first; idempotent)
//   uninstall  remove it (every tmux-fleet stamp hook), nothing else
//   status     exit 0 when a stamp hook is installed, 1 when not
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../context';
import { UsageError } from '../errors';
import { hookStatus, installHook, settingsFile, stampCommand, uninstallHook } from '../hooks/settings';
import type { Args } from './types';
import { writeStdout } from './output';
import { echoInput, printable } from '../text';

/** The running helper's own file (the bundle), symlinks resolved. */
function helperPath(): string {
  const self = resolve(process.argv[1] ?? 'tmux-fleet');
  try {
    return realpathSync(self);
  } catch {
    return self;
  }
}

export async function run(args: Args, ctx: Context): Promise<number> {
  const file = settingsFile(ctx.env);
  // The node running this command, by its absolute path: the hook needs no node on Claude Code's PATH.
  const command = stampCommand(helperPath(), process.execPath);
  const action = String(args.action);
  let r;
  if (action === 'install') r = await installHook(file, command);
  else if (action === 'uninstall') r = await uninstallHook(file, command);
  else if (action === 'status') r = await hookStatus(file, command);
  else throw new UsageError(`hooks: unknown action ${echoInput(String(action))} (install, uninstall, status)`);
  writeStdout(ctx.json ? `${JSON.stringify(r)}\n` : `${printable(r.message)}\n`);
  return action === 'status' && !r.installed ? 1 : 0;
}
