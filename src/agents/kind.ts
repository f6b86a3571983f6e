// Which agent a process is, told from the process itself, never from a
// command string (docs/ownership.md#agents): its name, the file it executes,
// its argv and, for Gemini CLI, its environment. Observed with Claude Code
// 2.1.x, Codex CLI 0.171.0 and Gemini CLI 0.61.0 on Linux.
import { readCmdline, readComm, readEnviron, readExe } from '../proc';

export const AGENT_KINDS = ['claude', 'codex', 'gemini'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

export const AGENT_NAMES: Record<AgentKind, string> = { claude: 'Claude Code', codex: 'Codex CLI', gemini: 'Gemini CLI' };

export function isAgentKind(v: unknown): v is AgentKind {
  return typeof v === 'string' && (AGENT_KINDS as readonly string[]).includes(v);
}

/** What identification looks at; env is read only when asked (a process's environment can be large). */
export interface ProcessLook {
  comm: string | null;
  exe: string | null;
  argv: string[] | null;
  env: () => ReadonlyMap<string, string> | null;
}

export interface AgentIdentity {
  kind: AgentKind;
  /** Codex's app-server daemon: it runs the threads of every TUI that uses it, so no pane can be tied to it. */
  daemon: boolean;
}

function base(path: string | null | undefined): string {
  if (!path) return '';
  const i = path.lastIndexOf('/');
  return i === -1 ? path : path.slice(i + 1);
}

function isNode(look: ProcessLook): boolean {
  return look.comm === 'node' || /^node(\d+)?$/.test(base(look.exe));
}

/** The script a node process runs: its first argument that is not an option. */
export function nodeScript(argv: readonly string[] | null): string | null {
  if (!argv) return null;
  for (const arg of argv.slice(1)) if (!arg.startsWith('-')) return arg;
  return null;
}

/**
 * The agent a process is, or null (pure):
 * - Codex CLI: its native binary (`codex`; the npm package runs it under a
 *   `node …/bin/codex` wrapper, which is not the agent); `codex app-server`
 *   is its daemon.
 * - Gemini CLI: the node process that runs `gemini` with
 *   GEMINI_CLI_NO_RELAUNCH=true (the first `gemini` relaunches itself as that
 *   child, which is the agent).
 * - Claude Code: its native binary (`claude`), or node running its npm cli.js.
 */
export function identifyAgent(look: ProcessLook): AgentIdentity | null {
  const exe = base(look.exe);
  if (exe === 'codex' || (look.comm === 'codex' && !isNode(look))) {
    return { kind: 'codex', daemon: (look.argv ?? []).slice(1, 3).includes('app-server') };
  }
  if (exe === 'claude' || (look.comm === 'claude' && !isNode(look))) return { kind: 'claude', daemon: false };
  if (isNode(look)) {
    const script = nodeScript(look.argv) ?? '';
    if ((base(script) === 'gemini' || base(script) === 'gemini.js') && look.env()?.get('GEMINI_CLI_NO_RELAUNCH') === 'true') {
      return { kind: 'gemini', daemon: false };
    }
    if (/\/@anthropic-ai\/claude-code\/cli\.m?js$/.test(script)) return { kind: 'claude', daemon: false };
  }
  return null;
}

/** The facts identification needs, read from /proc (environment only when asked). */
export function lookAt(pid: number): ProcessLook {
  let env: ReadonlyMap<string, string> | null | undefined;
  return {
    comm: readComm(pid),
    exe: readExe(pid),
    argv: readCmdline(pid),
    env: () => (env === undefined ? (env = readEnviron(pid)) : env),
  };
}
