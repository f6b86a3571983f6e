// tmux-fleet hooks install|uninstall|status [--agent claude|codex|gemini]...
//   install    merge the SessionStart hook `'<this helper>' stamp` into each
//              agent's file (backup first; idempotent); for Codex CLI, record
//              the trust it asks for in its config.toml
//   uninstall  remove it (every tmux-fleet stamp hook), nothing else
//   status     one line per agent; exit 0 when every one has the hook, 1 when not
// Without --agent: Claude Code, and every other agent whose configuration
// directory exists (docs/ownership.md#agents).
import type { Context } from '../context';
import { errorMessage, FleetError, UsageError } from '../errors';
import { isAgentKind, type AgentKind } from '../agents/kind';
import { hookAction, hookLine, selectAgents, thisStampCommand, type AgentHookResult } from '../hooks/agents';
import type { Args } from './types';
import { writeStdout } from './output';
import { echoInput, printable } from '../text';

function askedAgents(value: unknown): AgentKind[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list.map((a) => {
    if (!isAgentKind(a)) throw new UsageError(`hooks: --agent ${echoInput(String(a))} is not an agent (claude, codex, gemini)`);
    return a;
  });
}

export async function run(args: Args, ctx: Context): Promise<number> {
  const command = thisStampCommand();
  const action = String(args.action);
  if (action !== 'install' && action !== 'uninstall' && action !== 'status') {
    throw new UsageError(`hooks: unknown action ${echoInput(String(action))} (install, uninstall, status)`);
  }
  const results: AgentHookResult[] = [];
  const failed: string[] = [];
  for (const agent of selectAgents(askedAgents(args.agent), ctx.env)) {
    try {
      results.push(await hookAction(action, agent, command, ctx.env));
    } catch (err) {
      failed.push(`${agent}: ${errorMessage(err)}`);
    }
  }
  if (ctx.json) writeStdout(`${JSON.stringify({ agents: results, errors: failed })}\n`);
  else writeStdout(results.map((r) => `${printable(hookLine(r))}\n`).join(''));
  // Each agent's file stands alone: one that cannot be edited fails the command after the others were done.
  if (failed.length > 0) throw new FleetError(failed.join('; '));
  return action === 'status' && results.some((r) => !r.installed) ? 1 : 0;
}
