// Which agent a spawn's command runs, told from the file it runs
// (docs/ownership.md#spawn): the program word of the command is looked up on
// PATH, symlinks resolved, and the npm package that holds the file names the
// agent (an npm bin is a link into its package); a file outside any package
// by its own name (Claude Code's native binary is `claude`). Spawn needs to
// know before the agent runs: how it takes a launch prompt, a session id and
// a resume. What is recorded of the Driver later comes from its process.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { AgentKind } from './kind';

/** npm packages of each agent (the platform packages hold the native binaries). */
const PACKAGES: [RegExp, AgentKind][] = [
  [/^@anthropic-ai\/claude-code(-.+)?$/, 'claude'],
  [/^@openai\/codex(-.+)?$/, 'codex'],
  [/^@google\/gemini-cli(-.+)?$/, 'gemini'],
];

/** The program word of a simple shell command: after `env` and NAME=value words; null when it is not a plain word. */
export function programWord(command: string): string | null {
  const words = command.trim().split(/\s+/);
  let i = 0;
  if (words[i] === 'exec') i++;
  if (words[i] === 'env') {
    i++;
    while (words[i]?.startsWith('-')) i++;
  }
  while (words[i] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] as string)) i++;
  const word = words[i];
  // Quotes or expansions: not a word to look up as it stands.
  if (!word || /["'$`\\(){}<>|;&*?[\]~]/.test(word)) return null;
  return word;
}

/** The file a program word runs: a path as given, else the first executable match on PATH. */
export function resolveProgram(word: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  const candidates = word.includes('/') ? [isAbsolute(word) ? word : resolve(cwd, word)] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, word));
  for (const file of candidates) {
    try {
      if (statSync(file).isFile()) return realpathSync(file);
    } catch {
      /* not there */
    }
  }
  return null;
}

/** The name of the nearest package.json above a file (at most six levels), or null. */
function packageName(file: string): string | null {
  let dir = dirname(file);
  for (let i = 0; i < 6 && dir !== sep && dir !== '.'; i++, dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (!existsSync(pkg)) continue;
    try {
      const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name;
      return typeof name === 'string' ? name : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** The agent a file is, by its package, else by its own name (pure but for the package read). */
export function agentOfFile(file: string): AgentKind | null {
  const name = packageName(file);
  if (name !== null) for (const [re, kind] of PACKAGES) if (re.test(name)) return kind;
  const base = file.slice(file.lastIndexOf('/') + 1);
  if (base === 'claude' || base === 'codex' || base === 'gemini') return base;
  return null;
}

/** The agent a spawn command runs, or null (another CLI agent, or a command whose program cannot be looked up). */
export function agentOfCommand(command: string, env: NodeJS.ProcessEnv, cwd: string): AgentKind | null {
  const word = programWord(command);
  if (word === null) return null;
  const file = resolveProgram(word, env, cwd);
  return file === null ? null : agentOfFile(file);
}

/**
 * How an agent takes the launch prompt as one argument, so that no text is
 * ever read as its options (docs/ownership.md#the-launch-prompt), checked
 * against each real agent: a prompt is text, whatever it starts with.
 * - `after-options`: `-- <text>`; Claude Code (commander) and Codex CLI (clap)
 *   end their options at `--`.
 * - `option`: `<option>=<text>`; Gemini CLI (yargs) reads `-i <text>` that
 *   starts with `-` as another option, and `--` as its positional prompt,
 *   which would run non-interactively.
 * - `last`: another agent, whose options tmux-fleet does not know: the last
 *   argument as it is; spawn refuses a text that starts with `-` for it.
 */
export type PromptForm = { kind: 'after-options' } | { kind: 'option'; option: string } | { kind: 'last' };

/** How each agent takes what spawn passes (observed with the pinned versions, docs/ownership.md#spawn). */
export interface LaunchArgs {
  /** Before the launch prompt. */
  args: string[];
  /** How the launch prompt follows them. */
  prompt: PromptForm;
}

/** The launch prompt's form for an agent. */
export function promptForm(kind: AgentKind | null): PromptForm {
  if (kind === 'gemini') return { kind: 'option', option: '--prompt-interactive' };
  if (kind === 'claude' || kind === 'codex') return { kind: 'after-options' };
  return { kind: 'last' };
}

/**
 * The arguments of a launch: resume a session id (Claude Code and Gemini CLI
 * `--resume <id>`, Codex CLI `resume <id>`), or for Gemini CLI a session id
 * of its own (`--session-id`, so the supervisor can prove it without the
 * hook); then the launch prompt in the agent's form.
 */
export function launchArgs(kind: AgentKind | null, opts: { resume: string | null; newSessionId: () => string }): LaunchArgs {
  const prompt = promptForm(kind);
  if (opts.resume !== null) return { args: kind === 'codex' ? ['resume', opts.resume] : ['--resume', opts.resume], prompt };
  if (kind === 'gemini') return { args: ['--session-id', opts.newSessionId()], prompt };
  return { args: [], prompt };
}
