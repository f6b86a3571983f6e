// Codex CLI's trust of a hook (docs/ownership.md#codex-cli). Codex runs a
// hook of ~/.codex/hooks.json only once it is trusted: until then its TUI
// stops at a "Hooks need review" screen. Trust is a table of its config.toml,
//   [hooks.state."<hooks.json path>:<event, snake case>:<group>:<handler>"]
//   trusted_hash = "sha256:<hex>"
// where the hash is SHA-256 over a normalized form of the hook: the event's
// key label and the one handler, with the defaults Codex fills in (timeout
// 600, async false), keys sorted, as compact JSON. Checked against Codex
// 0.171.0 itself: its app-server's hooks/list reports the same currentHash,
// and its TUI starts without the review screen (test/agents-real/).
//
// config.toml is the user's: it is edited as text, only the lines of our own
// table, and the result is parsed again and compared with what was meant
// before it is written. A file that does not parse is refused, nothing changed.
import { createHash } from 'node:crypto';
import { FleetError } from '../errors';

/** An event's label in Codex's trust keys and hashes: its name in snake case (SessionStart: session_start). */
export function codexEventLabel(event: string): string {
  return event.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

/** Events whose hook timeout Codex clamps to 3 s (measured with Codex 0.171.0's hooks/list). */
const SHORT_EVENTS = new Set(['SessionEnd', 'Interrupt']);
export const CODEX_SHORT_TIMEOUT = 3;

type Json = Record<string, unknown>;

/** JSON with every object's keys sorted, compact (as Codex hashes it). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Json;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined && obj[k] !== null)
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The hash Codex expects for a command hook of an event (default SessionStart),
 * given its group's matcher and the hook entry as hooks.json holds it. Null
 * for an entry Codex would not run as a command hook.
 */
export function codexHookHash(matcher: unknown, hook: Json, event = 'SessionStart'): string | null {
  if (hook.type !== 'command' || typeof hook.command !== 'string' || hook.command.trim() === '') return null;
  const given = typeof hook.timeout === 'number' && Number.isInteger(hook.timeout) && hook.timeout > 0 ? hook.timeout : 600;
  const timeout = SHORT_EVENTS.has(event) ? Math.min(given, CODEX_SHORT_TIMEOUT) : given;
  const handler: Json = {
    type: 'command',
    command: hook.command,
    timeout,
    async: hook.async === true,
    statusMessage: typeof hook.statusMessage === 'string' ? hook.statusMessage : undefined,
  };
  const identity: Json = { event_name: codexEventLabel(event), matcher: typeof matcher === 'string' ? matcher : undefined, hooks: [handler] };
  return `sha256:${createHash('sha256').update(canonical(identity)).digest('hex')}`;
}

/** The key of a hook's state in config.toml. */
export function codexTrustKey(hooksFile: string, group: number, hook: number, event = 'SessionStart'): string {
  return `${hooksFile}:${codexEventLabel(event)}:${group}:${hook}`;
}

/** What config.toml says that matters here. */
export interface CodexConfig {
  exists: boolean;
  text: string;
  data: Json;
}

type TomlParse = (text: string) => Json;

async function toml(): Promise<TomlParse> {
  // Loaded on use: only hooks and doctor read config.toml.
  const { parse } = await import('smol-toml');
  return parse as unknown as TomlParse;
}

/** Parses config.toml text; a file that does not parse is a FleetError naming it. */
export async function parseCodexConfig(file: string, text: string | null): Promise<CodexConfig> {
  if (text === null) return { exists: false, text: '', data: {} };
  try {
    return { exists: true, text, data: (await toml())(text) };
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new FleetError(`${file}: not valid TOML (${why}); nothing changed`);
  }
}

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** hooks.state of a parsed config.toml. */
export function hookStates(data: Json): Json {
  const hooks = data.hooks;
  const state = isRecord(hooks) ? hooks.state : undefined;
  return isRecord(state) ? state : {};
}

/** The trusted hash config.toml records for a key, or null. */
export function trustedHash(data: Json, key: string): string | null {
  const entry = hookStates(data)[key];
  return isRecord(entry) && typeof entry.trusted_hash === 'string' ? entry.trusted_hash : null;
}

/** Whether Codex starts its app-server daemon (its default): [features] daemon_auto_start = false turns it off. */
export function daemonAutoStart(data: Json): boolean {
  const features = data.features;
  return !(isRecord(features) && features.daemon_auto_start === false);
}

/** A TOML basic string (the same escapes as JSON for what a path can hold). */
function tomlString(s: string): string {
  return JSON.stringify(s).replace(/\u007f/g, '\\u007f');
}

/** A line that starts a table: `[...]` or `[[...]]`, ignoring a trailing comment. */
const TABLE_RE = /^\s*\[/;
/** The header of a hooks.state table with a basic- or literal-string key. */
const STATE_HEADER_RE = /^\s*\[\s*hooks\s*\.\s*state\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*\]\s*(?:#.*)?$/;

function headerKey(line: string): string | null {
  const m = STATE_HEADER_RE.exec(line);
  if (!m) return null;
  if (m[2] !== undefined) return m[2];
  try {
    return JSON.parse(`"${m[1] as string}"`) as string;
  } catch {
    return null;
  }
}

/** The line range [start, end) of the table `[hooks.state."key"]`, or null. */
function tableLines(lines: readonly string[], key: string): [number, number] | null {
  const start = lines.findIndex((l) => headerKey(l) === key);
  if (start === -1) return null;
  let end = start + 1;
  while (end < lines.length && !TABLE_RE.test(lines[end] as string)) end++;
  // Blank lines before the next table stay with it.
  while (end > start + 1 && (lines[end - 1] as string).trim() === '') end--;
  return [start, end];
}

export interface TrustEdit {
  /** Keys to record as trusted with their hash. */
  trust: { key: string; hash: string }[];
  /** Keys whose state goes (our hook removed). */
  remove: string[];
  /** Keys renamed (a later hook of the same event moves up when ours goes). */
  rename: { from: string; to: string }[];
}

/** A stable text of a parsed TOML value, to compare two parses (dates and floats as their text). */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isRecord(v) && Object.getPrototypeOf(v) !== Date.prototype && !(v instanceof Date)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
      .join(',')}}`;
  }
  return `${typeof v}:${String(v)}`;
}

/** A copy of the tables and arrays of a parsed value (leaves shared). */
function copyTables(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyTables);
  if (isRecord(v) && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copyTables(x)]));
  return v;
}

/** The value without empty tables, at any depth. */
function pruned(v: unknown): unknown {
  if (!isRecord(v) || v instanceof Date) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    const p = pruned(x);
    if (!(isRecord(p) && Object.keys(p).length === 0)) out[k] = p;
  }
  return out;
}

/**
 * config.toml's text with the edit applied to our tables only; throws a
 * FleetError when the result would not be exactly what was meant (a form of
 * the file this edit does not handle), so nothing is written.
 */
export async function editCodexTrust(file: string, config: CodexConfig, edit: TrustEdit): Promise<string> {
  const eol = config.text.includes('\r\n') ? '\r\n' : '\n';
  let lines = config.text === '' ? [] : config.text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const expected = copyTables(config.data) as Json;
  const states = (): Json => {
    const hooks = (expected.hooks ??= {}) as Json;
    return (hooks.state ??= {}) as Json;
  };

  for (const key of edit.remove) {
    const range = tableLines(lines, key);
    if (range) {
      let [start] = range;
      const [, end] = range;
      // The blank line our table was appended after goes with it.
      if (start > 0 && (lines[start - 1] as string).trim() === '') start--;
      lines = [...lines.slice(0, start), ...lines.slice(end)];
    }
    delete states()[key];
  }
  for (const { from, to } of edit.rename) {
    const i = lines.findIndex((l) => headerKey(l) === from);
    if (i !== -1) lines[i] = `[hooks.state.${tomlString(to)}]`;
    const st = states();
    if (from in st) {
      st[to] = st[from];
      delete st[from];
    }
  }
  for (const { key, hash } of edit.trust) {
    const line = `trusted_hash = ${tomlString(hash)}`;
    const range = tableLines(lines, key);
    if (range) {
      const [start, end] = range;
      const at = lines.slice(start + 1, end).findIndex((l) => /^\s*trusted_hash\s*=/.test(l));
      if (at === -1) lines.splice(start + 1, 0, line);
      else lines[start + 1 + at] = line;
    } else {
      if (lines.length > 0 && (lines[lines.length - 1] as string).trim() !== '') lines.push('');
      lines.push(`[hooks.state.${tomlString(key)}]`, line);
    }
    const st = states();
    st[key] = { ...(isRecord(st[key]) ? st[key] : {}), trusted_hash: hash };
  }
  const text = lines.length === 0 ? '' : `${lines.join(eol)}${eol}`;
  const after = await parseCodexConfig(file, text).catch(() => null);
  // Compared without empty tables: one our removal empties leaves no header in the text.
  if (!after || sortedJson(pruned(after.data)) !== sortedJson(pruned(expected))) {
    throw new FleetError(`${file}: records hook trust in a form tmux-fleet does not edit (expected [hooks.state."<key>"] tables); nothing changed`);
  }
  return text;
}
