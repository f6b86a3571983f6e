// The SessionStart hook `'<helper>' stamp` for every agent, and the state
// hooks `'<helper>' event --agent <agent>` of the events that tell its state
// (docs/ownership.md#agents, #what-each-agent-tells), each in its own file:
//   Claude Code  ${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json
//   Codex CLI    ${CODEX_HOME:-~/.codex}/hooks.json, trusted in its config.toml
//   Gemini CLI   ${GEMINI_CLI_HOME:-~}/.gemini/settings.json
// The three files share the shape {"hooks":{"SessionStart":[group...]}}, so one
// editor (settings.ts) adds and removes the hook in each, keeping every other
// key and hook, backing up first. Codex asks for its trust of a new hook
// (codex-trust.ts): install records it, uninstall removes it, and a later
// hook's trust moves with the hook when ours goes.
import { isUtf8 } from 'node:buffer';
import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mkdir, stat } from '../fs-async';
import { claudeConfigDir, codexHome, geminiDir } from '../context';
import { readRegularFileBytes, UnsafeFileError } from '../fs-safe';
import { FleetError } from '../errors';
import { writeFileAtomic } from '../fs-atomic';
import { AGENT_KINDS, type AgentKind } from '../agents/kind';
import {
  CODEX_SHORT_TIMEOUT,
  codexHookHash,
  codexTrustKey,
  daemonAutoStart,
  editCodexTrust,
  parseCodexConfig,
  trustedHash,
  type CodexConfig,
  type TrustEdit,
} from './codex-trust';
import {
  eventCommand,
  findOurHooks,
  hookHelperPath,
  hookNodePath,
  hookStatus,
  installHook,
  keepBackup,
  readSettings,
  restoreSettings,
  stampCommand,
  uninstallHook,
  type HookResult,
  type HookSpec,
  type SettingsSyntax,
} from './settings';
import { SIGNAL_EVENTS } from '../agents/signals';

type Json = Record<string, unknown>;

/** How long Codex waits for our hook (seconds); part of what it trusts. */
export const CODEX_HOOK_TIMEOUT = 10;

export interface AgentHookFile {
  agent: AgentKind;
  /** The agent's configuration directory: its presence says the agent is used here. */
  dir: string;
  file: string;
  /** The hook group as this agent's file takes it (`event`: the SessionStart one when absent). */
  group(command: string, event?: string): Json;
  /** How the agent reads the file (Gemini CLI takes comments in it). */
  syntax: SettingsSyntax;
}

export function agentHookFile(agent: AgentKind, env: NodeJS.ProcessEnv): AgentHookFile {
  switch (agent) {
    case 'claude': {
      const dir = claudeConfigDir(env);
      return { agent, dir, file: join(dir, 'settings.json'), group: (command) => ({ hooks: [{ type: 'command', command }] }), syntax: {} };
    }
    case 'codex': {
      const dir = codexHome(env);
      // SessionEnd's and Interrupt's are clamped to 3 s by Codex: written so, what it runs is what the file says.
      const timeout = (event?: string) => (event === 'SessionEnd' || event === 'Interrupt' ? CODEX_SHORT_TIMEOUT : CODEX_HOOK_TIMEOUT);
      return { agent, dir, file: join(dir, 'hooks.json'), group: (command, event) => ({ hooks: [{ type: 'command', command, timeout: timeout(event) }] }), syntax: {} };
    }
    case 'gemini': {
      const dir = geminiDir(env);
      return {
        agent,
        dir,
        file: join(dir, 'settings.json'),
        group: (command) => ({ matcher: '*', hooks: [{ name: 'tmux-fleet', type: 'command', command }] }),
        // Gemini CLI 0.61.0 runs strip-json-comments on it before JSON.parse.
        syntax: { comments: true },
      };
    }
  }
}

/** The agents an action is for: those asked for, else Claude Code and every other agent whose directory exists. */
export function selectAgents(asked: readonly AgentKind[], env: NodeJS.ProcessEnv): AgentKind[] {
  if (asked.length > 0) return [...new Set(asked)];
  return AGENT_KINDS.filter((a) => a === 'claude' || existsSync(agentHookFile(a, env).dir));
}

export interface AgentHookResult extends HookResult {
  agent: AgentKind;
  /** Codex: whether config.toml trusts each of our hooks as it is now (null: not Codex, or no hook). */
  trusted: boolean | null;
  /** Codex: its config.toml, and the backup taken before it was changed. */
  trustFile: string | null;
  trustBackup: string | null;
  /** Codex: its app-server daemon starts by default, and then no pane can be proven. */
  daemonMode: boolean | null;
}

interface Handler {
  event: string;
  group: number;
  hook: number;
  ours: boolean;
  matcher: unknown;
  entry: Json;
}

/** Every handler of a hooks file, event by event, in order, with whether it is ours. */
function handlers(data: Json): Handler[] {
  const out: Handler[] = [];
  const hooks = data.hooks;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) continue;
    const mine = new Set(findOurHooks(data, event).map((f) => `${f.group}:${f.hook}`));
    groups.forEach((g, gi) => {
      const list = g && typeof g === 'object' ? (g as Json).hooks : undefined;
      if (!Array.isArray(list)) return;
      list.forEach((h, hi) => out.push({ event, group: gi, hook: hi, ours: mine.has(`${gi}:${hi}`), matcher: (g as Json).matcher, entry: (h ?? {}) as Json }));
    });
  }
  return out;
}

/** The state hooks an agent's file gets besides the stamp: the events that tell its state (src/agents/signals.ts). */
export function eventSpecs(agent: AgentKind, target: AgentHookFile, helper: string, node: string | undefined): HookSpec[] {
  return SIGNAL_EVENTS[agent].map((event) => {
    const command = eventCommand(helper, node, agent);
    return { event, command, group: target.group(command, event) };
  });
}

/**
 * The trust edit that follows a change of hooks.json from `before` to `after`
 * (docs/ownership.md#codex-cli): our hooks' trust is recorded (install) or
 * removed; another hook that moved (ours went from before it) takes its trust
 * along, in ascending order so that each target is free first.
 */
export function trustEditFor(hooksFile: string, before: Json, after: Json, trustOurs: boolean): TrustEdit {
  const was = handlers(before);
  const now = handlers(after);
  const key = (h: Handler) => codexTrustKey(hooksFile, h.group, h.hook, h.event);
  const oursNow = new Set(trustOurs ? now.filter((h) => h.ours).map(key) : []);
  const edit: TrustEdit = { trust: [], remove: [], rename: [] };
  for (const h of was) if (h.ours && !oursNow.has(key(h))) edit.remove.push(key(h));
  // Another hook keeps its place in its own event's list: matched event by event.
  for (const event of new Set([...was, ...now].map((h) => h.event))) {
    const others = { was: was.filter((h) => !h.ours && h.event === event), now: now.filter((h) => !h.ours && h.event === event) };
    others.now.forEach((n, i) => {
      const w = others.was[i];
      if (w && key(w) !== key(n)) edit.rename.push({ from: key(w), to: key(n) });
    });
  }
  if (trustOurs) {
    for (const n of now.filter((h) => h.ours)) {
      const hash = codexHookHash(n.matcher, n.entry, n.event);
      if (hash) edit.trust.push({ key: key(n), hash });
    }
  }
  return edit;
}

/**
 * hooks.json as Codex names it in its trust keys: under $CODEX_HOME with its
 * symlinks resolved (Codex 0.171.0 canonicalizes $CODEX_HOME), under ~/.codex
 * as it stands (that one it does not).
 */
export function codexTrustPath(env: NodeJS.ProcessEnv, hooksFile: string): string {
  if (!env.CODEX_HOME) return hooksFile;
  try {
    return join(realpathSync(env.CODEX_HOME), 'hooks.json');
  } catch {
    return hooksFile;
  }
}

async function readCodexConfig(file: string): Promise<CodexConfig> {
  let bytes: Buffer;
  try {
    bytes = readRegularFileBytes(file, 4 * 1024 * 1024);
  } catch (err) {
    if (err instanceof UnsafeFileError && err.code === 'ENOENT') return parseCodexConfig(file, null);
    throw err;
  }
  // TOML is UTF-8 only (Codex reads it so): decoding other bytes would write U+FFFD back for them.
  if (!isUtf8(bytes)) throw new FleetError(`${file}: not valid UTF-8, as TOML must be; nothing changed`);
  return parseCodexConfig(file, bytes.toString('utf8'));
}

/** Whether config.toml trusts each of our hooks as hooks.json holds them now. */
function allTrusted(hooksFile: string, hooks: Json, config: CodexConfig): boolean | null {
  const ours = handlers(hooks).filter((h) => h.ours);
  if (ours.length === 0) return null;
  return ours.every((h) => {
    const hash = codexHookHash(h.matcher, h.entry, h.event);
    return hash !== null && trustedHash(config.data, codexTrustKey(hooksFile, h.group, h.hook, h.event)) === hash;
  });
}

/** Writes config.toml (backup first, its mode kept); returns the backup's path. */
async function writeConfig(file: string, config: CodexConfig, text: string): Promise<string | null> {
  if (text === config.text) return null;
  let saved: string | null = null;
  if (config.exists) {
    saved = await keepBackup(file);
  } else {
    await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  }
  const mode = config.exists ? (await stat(file)).mode & 0o777 : 0o600;
  await writeFileAtomic(file, text, mode);
  return saved;
}

const DAEMON_NOTE = (config: string) =>
  `Codex starts its app-server daemon by default, and a hook run by the daemon names the wrong pane, so no pane can be proven: set [features] daemon_auto_start = false in ${config} (or run codex --no-daemon)`;

function withCodex(r: HookResult, extra: Partial<AgentHookResult>, message: string): AgentHookResult {
  return { ...r, agent: 'codex', trusted: null, trustFile: null, trustBackup: null, daemonMode: null, ...extra, message };
}

/** install, uninstall or status of the hook for one agent. */
export async function hookAction(action: 'install' | 'uninstall' | 'status', agent: AgentKind, command: string, env: NodeJS.ProcessEnv): Promise<AgentHookResult> {
  const target = agentHookFile(agent, env);
  // The state hooks go with the stamp, run by the same node and helper.
  const events = eventSpecs(agent, target, hookHelperPath(command) ?? currentHelperPath(), hookNodePath(command) ?? undefined);
  if (agent !== 'codex') {
    const r =
      action === 'install'
        ? await installHook(target.file, command, target.group(command), target.syntax, events)
        : action === 'uninstall'
          ? await uninstallHook(target.file, command, target.syntax)
          : await hookStatus(target.file, command, target.syntax, events);
    return { ...r, agent, trusted: null, trustFile: null, trustBackup: null, daemonMode: null };
  }

  // Codex: hooks.json, then the trust config.toml records for it. Both are read (and checked) before either is written.
  const configFile = join(target.dir, 'config.toml');
  const keyFile = codexTrustPath(env, target.file);
  const config = await readCodexConfig(configFile);
  const read = await readSettings(target.file);
  const before = read.data;
  const daemonMode = daemonAutoStart(config.data);
  const note = daemonMode ? `; note: ${DAEMON_NOTE(configFile)}` : '';
  if (action === 'status') {
    const r = await hookStatus(target.file, command, {}, events);
    const trusted = allTrusted(keyFile, before, config);
    const trust = trusted === null ? '' : trusted ? `, trusted in ${configFile}` : `, but ${configFile} does not trust it as it is (Codex will ask to review it): tmux-fleet hooks install --agent codex records the trust`;
    return withCodex(r, { trusted, trustFile: configFile, daemonMode, installed: r.installed && trusted !== false }, `${r.message}${trust}${note}`);
  }
  const r = action === 'install' ? await installHook(target.file, command, target.group(command), {}, events) : await uninstallHook(target.file, command);
  let text: string;
  let trustBackup: string | null;
  try {
    const after = (await readSettings(target.file)).data;
    text = await editCodexTrust(configFile, config, trustEditFor(keyFile, before, after, action === 'install'));
    trustBackup = await writeConfig(configFile, config, text);
  } catch (err) {
    // hooks.json goes back as it was (its bytes, its mode): a hook Codex does not trust would stop its start-up at a review screen.
    if (r.change !== 'unchanged' && r.change !== 'absent') await restoreSettings(read);
    throw err;
  }
  const after = (await readSettings(target.file)).data;
  const trusted = action === 'install' ? allTrusted(keyFile, after, await readCodexConfig(configFile)) : null;
  const trustSaid =
    text === config.text
      ? action === 'install'
        ? `; trusted in ${configFile} already`
        : ''
      : action === 'install'
        ? `; recorded its trust in ${configFile}${trustBackup ? ` (backup: ${trustBackup})` : ''}`
        : `; removed its trust from ${configFile}${trustBackup ? ` (backup: ${trustBackup})` : ''}`;
  return withCodex(r, { trusted, trustFile: configFile, trustBackup, daemonMode }, `${r.message}${trustSaid}${action === 'install' ? note : ''}`);
}

/** The running helper's own file (the bundle), symlinks resolved: what the hook command runs. */
export function currentHelperPath(): string {
  const self = resolve(process.argv[1] ?? 'tmux-fleet');
  try {
    return realpathSync(self);
  } catch {
    return self;
  }
}

/**
 * The SessionStart hook command of this helper, the same for every agent:
 * the node running this command by its absolute path (an agent runs hooks
 * with its own PATH, which may hold no node: docs/tmux.md#node), then this
 * helper's file. `hooks install` writes it; `hooks status` and doctor compare
 * with it (runsSameHelper).
 */
export function thisStampCommand(): string {
  return stampCommand(currentHelperPath(), process.execPath);
}

/** What the state hooks missing from a file mean, and the fix (hooks status, doctor); '' when none is missing. */
export function missingEventsNote(r: Pick<HookResult, 'installed' | 'missingEvents'>): string {
  if (!r.installed || r.missingEvents.length === 0) return '';
  return `without the state hooks of ${r.missingEvents.join(', ')} (busy, idle and what a wait is for): tmux-fleet hooks install adds them`;
}

/** The one line an agent's result prints. */
export function hookLine(r: AgentHookResult): string {
  const note = r.action === 'status' ? missingEventsNote(r) : '';
  return `${r.agent}: ${r.message}${note ? `; ${note}` : ''}`;
}

