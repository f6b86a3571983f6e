// An agent's hooks file (Claude Code's and Gemini CLI's settings.json, Codex
// CLI's hooks.json) and our hooks in it: the stamp on SessionStart, the state
// hook on the events that tell an agent's state (docs/ownership.md#what-each-agent-tells):
//   {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "'<node>' '<helper>' stamp"}]}],
//              "PermissionRequest": [{"hooks": [{"type": "command", "command": "'<node>' '<helper>' event --agent claude"}]}]}}
// Only the parts we touch are validated (loosely); every other key, hook and
// group is kept as it was, byte for byte: the hook entry is edited in the
// file's bytes (jsonc-parser's modify/applyEdits on them one per character),
// the rest of the user's file, its formatting, bytes that are no UTF-8 and
// its mode are never rewritten. A file the agent would not read is never
// written: strict JSON, or JSON with comments where the agent takes them
// (Gemini CLI), whose comments are kept.
import type { EditResult, FormattingOptions, JSONPath } from 'jsonc-parser/lib/esm/main.js';
import { realpathSync } from 'node:fs';
import { lstat, mkdir, realpath, stat, unlink } from '../fs-async';
import { readRegularFileBytes, UnsafeFileError } from '../fs-safe';
import { dirname, join } from 'node:path';
import * as z from '../zod';
import { claudeConfigDir } from '../context';
import { FleetError } from '../errors';
import { writeFileAtomic } from '../fs-atomic';
import { blankComments, bytesOfUtf8, commentRanges, duplicateKeyOnPath, removeAt, utf8OfBytes } from '../json-text';
import { jsonErrorWithoutContent } from '../text';

export const HOOK_EVENT = 'SessionStart';

/**
 * The hook command for a helper at `helperPath`: the node that runs it by its
 * absolute path (Claude Code runs hooks with its own PATH, which may hold no
 * node: docs/tmux.md#node), the helper's path, each shell-quoted, then `stamp`.
 * Without `node`: the older form, the helper alone (its `#!/usr/bin/env node`).
 */
export function stampCommand(helperPath: string, node?: string): string {
  return `${node ? `${shellQuote(node)} ` : ''}${shellQuote(helperPath)} stamp`;
}

/** The words before ` stamp` (one or two: [node] helper), each shell-quoted or plain; null for another shape. */
function stampWords(command: string): string[] | null {
  const word = String.raw`'(?:[^']|'\\'')*'|[^\s'"]+`;
  const m = new RegExp(String.raw`^(${word})(?:\s+(${word}))?\s+stamp(?:\s|$)`).exec(command);
  if (!m) return null;
  const unquote = (w: string) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w);
  return [m[1], m[2]].filter((w): w is string => w !== undefined).map(unquote);
}

/**
 * The helper file a stamp hook command runs, when it names one by an absolute
 * path (as stampCommand writes it, with or without node before it); null for a
 * bare `tmux-fleet` found on PATH, or a command of another shape.
 */
export function hookHelperPath(command: string): string | null {
  const words = stampWords(command);
  const helper = words?.[words.length - 1];
  return helper !== undefined && helper.startsWith('/') ? helper : null;
}

/** The node a stamp hook command runs the helper with, when it names one by an absolute path; else null. */
export function hookNodePath(command: string): string | null {
  const words = stampWords(command);
  return words && words.length === 2 && words[0]!.startsWith('/') ? words[0]! : null;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Does a stamp hook command found in a file run the same helper as `ours`
 * (docs/ownership.md#agents)? The same command, or the same helper file
 * (symlinks resolved) whatever node runs it. A bare `tmux-fleet stamp` (found
 * on the agent's PATH) or a command of another shape cannot be told: no.
 */
export function runsSameHelper(found: string, ours: string): boolean {
  if (found === ours) return true;
  const a = hookHelperPath(found);
  const b = hookHelperPath(ours);
  return a !== null && b !== null && realOrSelf(a) === realOrSelf(b);
}

export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./+@%,:=-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Is this hook command ours? Any command that runs tmux-fleet (the bundle
 * or an installed `tmux-fleet` bin) with the `stamp` subcommand.
 */
export function isStampCommand(command: string): boolean {
  return /(?:^|[\s'"/])tmux-fleet(?:\.[cm]js)?['"]?\s+stamp(?:\s|$)/.test(command);
}

/** The state hook of an agent (tmux-fleet event --agent <agent>), for a helper and node as stampCommand names them. */
export function eventCommand(helperPath: string, node: string | undefined, agent: string): string {
  return `${node ? `${shellQuote(node)} ` : ''}${shellQuote(helperPath)} event --agent ${agent}`;
}

/** Is this hook command our state hook? Any command that runs tmux-fleet with the `event` subcommand. */
export function isEventCommand(command: string): boolean {
  return /(?:^|[\s'"/])tmux-fleet(?:\.[cm]js)?['"]?\s+event(?:\s|$)/.test(command);
}

/** Is a hook command of this event ours: the stamp on SessionStart, the state hook on any other. */
export function isOurCommand(event: string, command: string): boolean {
  return event === HOOK_EVENT ? isStampCommand(command) : isEventCommand(command);
}

/** Our hook of one event, as an agent's file takes it. */
export interface HookSpec {
  event: string;
  command: string;
  /** The hook group to add. */
  group: Json;
}

export function settingsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(claudeConfigDir(env), 'settings.json');
}

const HookSchema = z.looseObject({ type: z.optional(z.unknown()), command: z.optional(z.unknown()) });
const GroupSchema = z.looseObject({ hooks: z.optional(z.array(z.unknown())) });
const SettingsSchema = z.looseObject({
  hooks: z.optional(z.looseObject({ [HOOK_EVENT]: z.optional(z.array(z.unknown())) })),
});

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function ourCommand(hook: unknown, event: string): string | null {
  const h = HookSchema.safeParse(hook);
  if (!h.success) return null;
  const { type, command } = h.data;
  return type === 'command' && typeof command === 'string' && isOurCommand(event, command) ? command : null;
}

export interface SettingsRead {
  file: string;
  /** The file the writes go to (settings.json may be a symlink into a dotfiles repo). */
  target: string;
  exists: boolean;
  data: Json;
  /**
   * The file's bytes, one per character (latin1; '' when missing): edits are
   * made in it, and every byte they do not touch is written back as it was.
   */
  text: string;
  /** Comments are part of the file's syntax (Gemini CLI's settings.json). */
  comments: boolean;
  /** The file's mode, kept by every write (null when missing). */
  mode: number | null;
}

/** How an agent reads its file: strict JSON, or with comments (Gemini CLI: strip-json-comments, then JSON.parse). */
export interface SettingsSyntax {
  comments?: boolean;
}

/** The file's bytes (one per character) as the agent reads them: UTF-8, its comments blanked first where it takes them. */
function agentView(text: string, comments: boolean): string {
  const decoded = utf8OfBytes(text);
  return comments ? blankComments(decoded, commentRanges(decoded), true) : decoded;
}

/** What the agent reads from a text of the file's bytes; throws what JSON.parse throws. */
function parseSettingsText(text: string, comments: boolean): unknown {
  return JSON.parse(agentView(text, comments));
}

/** The text with its comments blanked (same offsets): its structure, for the scans of json-text.ts. */
function structureOf(text: string, comments: boolean): string {
  return comments ? blankComments(text, commentRanges(text)) : text;
}

/** Only JSON's white space (trim() would take a lone byte 0xA0 for a space). */
const isBlank = (text: string) => /^[ \t\r\n]*$/.test(text);

/** Text written anew (what we insert), as the bytes it is in the file: UTF-8, one byte per character. */
const encode = bytesOfUtf8;

/** settings.json is kilobytes; a bigger file is not read (nor a FIFO, which would block). */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** Reads and loosely validates settings.json; a missing file reads as {}. */
export async function readSettings(file: string, syntax: SettingsSyntax = {}): Promise<SettingsRead> {
  const comments = syntax.comments === true;
  let target = file;
  try {
    // The user's own link (a dotfiles repo) is followed on purpose: its target is read and written.
    if ((await lstat(file)).isSymbolicLink()) target = await realpath(file);
  } catch {
    /* missing: written where named */
  }
  let bytes: Buffer;
  try {
    bytes = readRegularFileBytes(target, MAX_SETTINGS_BYTES);
  } catch (err) {
    if (err instanceof UnsafeFileError && err.code === 'ENOENT') return { file, target, exists: false, data: {}, text: '', comments, mode: null };
    if (err instanceof UnsafeFileError) throw new FleetError(`${file}: ${err.problem}; nothing changed`);
    throw err;
  }
  const text = bytes.toString('latin1');
  const mode = (await stat(target)).mode & 0o777;
  if (isBlank(text)) return { file, target, exists: true, data: {}, text, comments, mode };
  let raw: unknown;
  const seen = agentView(text, comments);
  try {
    raw = JSON.parse(seen);
  } catch (err) {
    const msg = jsonErrorWithoutContent(err instanceof Error ? err.message : String(err));
    throw new FleetError(`${file}: not valid JSON (${msg}${lineColumn(seen, msg)}); nothing changed`);
  }
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success || !isRecord(raw)) {
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new FleetError(
      `${file}: unexpected settings shape at ${path}: ${issue?.message ?? 'expected an object'}; nothing changed`,
    );
  }
  return { file, target, exists: true, data: raw, text, comments, mode };
}

/** ", line L column C" for a JSON.parse message naming a position. */
function lineColumn(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m || /line \d+/.test(message)) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `, line ${line} column ${column}`;
}

export interface FoundHook {
  group: number;
  hook: number;
  command: string;
}

/** Every stamp hook in hooks.SessionStart, in order. */
export function findStampHooks(data: Json): FoundHook[] {
  return findOurHooks(data, HOOK_EVENT);
}

/** Every hook of ours under an event (the stamp on SessionStart, the state hook on others), in order. */
export function findOurHooks(data: Json, event: string): FoundHook[] {
  const found: FoundHook[] = [];
  const hooks = data.hooks;
  if (!isRecord(hooks)) return found;
  const groups = hooks[event];
  if (!Array.isArray(groups)) return found;
  groups.forEach((g, gi) => {
    const group = GroupSchema.safeParse(g);
    if (!group.success || !group.data.hooks) return;
    group.data.hooks.forEach((h, hi) => {
      const command = ourCommand(h, event);
      if (command !== null) found.push({ group: gi, hook: hi, command });
    });
  });
  return found;
}

/** The events of the file that hold a hook of ours. */
function eventsWithOurs(data: Json): string[] {
  const hooks = data.hooks;
  return isRecord(hooks) ? Object.keys(hooks).filter((e) => findOurHooks(data, e).length > 0) : [];
}

type Jsonc = typeof import('jsonc-parser/lib/esm/main.js');

/** Loaded on the first edit only: reading settings (doctor, hooks status) never pays for it. */
async function loadJsonc(): Promise<Jsonc> {
  return import('jsonc-parser/lib/esm/main.js');
}

/**
 * The file's own layout for what is inserted: its indentation and line ends;
 * null for a file written on one line (what is inserted stays on it too).
 */
export function formattingOf(text: string): FormattingOptions | null {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)["{[\]}]/m.exec(text)?.[1];
  if (indent === undefined) return /^\s*\{\s*\}\s*$/.test(text) ? { insertSpaces: true, tabSize: 2, eol } : null;
  if (indent.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent.length, eol };
}

const eventPath = (event: string): JSONPath => ['hooks', event];

/**
 * Applies one change at path (undefined: removes it) to the text (the file's
 * bytes, one per character). Only the bytes of that change are touched:
 * jsonc-parser's own formatting would re-indent the neighbours (and can tear a
 * one-line array), so it is not asked for; what is inserted is laid out here
 * in the file's indentation, as UTF-8. A removal keeps the comments inside
 * what it removes (`comments`).
 */
function edit(jsonc: Jsonc, text: string, path: JSONPath, value: unknown, comments: boolean, insert = false): string {
  // jsonc-parser 3.3.1 tears a one-line array when it removes its last element: removals are ours.
  if (value === undefined) return removeAt(text, path, comments ? commentRanges(text) : []);
  const edits: EditResult = jsonc.modify(text, path, value, { isArrayInsertion: insert });
  const layout = formattingOf(text);
  if (layout === null) return jsonc.applyEdits(text, edits.map((e) => ({ ...e, content: encode(e.content) })));
  const { eol = '\n', insertSpaces, tabSize = 2 } = layout;
  const unit = insertSpaces ? ' '.repeat(tabSize) : '\t';
  const compact = JSON.stringify(value);
  const pad = eol + unit.repeat(path.length);
  const laidOut = edits.map((e) => {
    const at = e.content.lastIndexOf(compact);
    // A replaced value (a command) stays on its line as it is.
    if (e.length !== 0 || at < 0) return e;
    const head = e.content.slice(0, at);
    const lead = head.startsWith(',') ? ',' : '';
    const tail = e.content.slice(at + compact.length);
    const body = JSON.stringify(value, null, unit).replace(/\n/g, pad);
    // Into an empty container: its closing bracket goes on a line of its own.
    const close = lead === '' && tail === '' ? eol + unit.repeat(path.length - 1) : '';
    return { ...e, content: `${lead}${pad}${head.slice(lead.length).trimStart()}${body}${tail}${close}` };
  });
  return jsonc.applyEdits(text, laidOut.map((e) => ({ ...e, content: encode(e.content) })));
}

/** Removes the given hooks of an event; groups, the event list and `hooks` left empty by the removal go too. */
function removeHooks(jsonc: Jsonc, text: string, data: Json, event: string, remove: FoundHook[], comments: boolean): string {
  const groups = (data.hooks as Json)[event] as unknown[];
  const path = eventPath(event);
  let out = text;
  // From the last index down: an earlier removal never shifts a later target.
  const byGroup = [...new Set(remove.map((r) => r.group))].sort((a, b) => b - a);
  for (const gi of byGroup) {
    const mine = remove.filter((r) => r.group === gi).map((r) => r.hook).sort((a, b) => b - a);
    const all = ((groups[gi] as Json).hooks as unknown[]).length;
    if (mine.length === all) out = edit(jsonc, out, [...path, gi], undefined, comments);
    else for (const hi of mine) out = edit(jsonc, out, [...path, gi, 'hooks', hi], undefined, comments);
  }
  const after = parseSettingsText(out, comments) as Json;
  const hooks = after.hooks as Json;
  if (Array.isArray(hooks[event]) && (hooks[event] as unknown[]).length === 0) {
    out = edit(jsonc, out, path, undefined, comments);
    if (Object.keys(hooks).length === 1) out = edit(jsonc, out, ['hooks'], undefined, comments);
  }
  return out;
}

/**
 * Claude Code's hook group. No matcher: SessionStart fires on startup, resume,
 * clear and compact, and the session id changes on /clear, so every source
 * must stamp. Other agents' files take the same shape with their own fields
 * (src/hooks/agents.ts).
 */
export function claudeHookGroup(command: string): Json {
  return { hooks: [{ type: 'command', command }] };
}

/** The text and what it says, as the edits of one write go along. */
interface Draft {
  text: string;
  data: Json;
  comments: boolean;
}

function addHook(jsonc: Jsonc, draft: Draft, event: string, group: Json): string {
  if (isBlank(draft.text)) return encode(`${JSON.stringify({ hooks: { [event]: [group] } }, null, 2)}\n`);
  const hooks = draft.data.hooks;
  // Each insertion names the whole value it adds (jsonc-parser would otherwise wrap it in the missing parents).
  if (!isRecord(hooks)) return edit(jsonc, draft.text, ['hooks'], { [event]: [group] }, draft.comments);
  if (Array.isArray(hooks[event])) {
    return edit(jsonc, draft.text, [...eventPath(event), (hooks[event] as unknown[]).length], group, draft.comments, true);
  }
  return edit(jsonc, draft.text, eventPath(event), [group], draft.comments);
}

function replaceCommand(jsonc: Jsonc, draft: Draft, event: string, at: FoundHook, command: string): string {
  return edit(jsonc, draft.text, [...eventPath(event), at.group, 'hooks', at.hook, 'command'], command, draft.comments);
}

export type HookChange = 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';

export interface HookResult {
  action: 'install' | 'uninstall' | 'status';
  file: string;
  change: HookChange;
  installed: boolean;
  /** The command we install. */
  command: string;
  /** The stamp commands found in the file (after the action). */
  found: string[];
  /** The events of the state hooks asked for that hold no hook of ours (after the action). */
  missingEvents: string[];
  created: boolean;
  backup: string | null;
  message: string;
}

/** The one backup of a file tmux-fleet edits: `<file>.bak-tmux-fleet`. */
export const BACKUP_SUFFIX = '.bak-tmux-fleet';

/**
 * Keeps the file as it is now, byte for byte, as its one backup
 * (`<file>.bak-tmux-fleet`, 0600), in place of the last one: the file as it
 * was before tmux-fleet's last change to it (docs/ownership.md#agents). An
 * install or uninstall run again and again leaves one backup, not one per run.
 */
export async function keepBackup(file: string): Promise<string> {
  const name = `${file}${BACKUP_SUFFIX}`;
  await writeFileAtomic(name, readRegularFileBytes(file, MAX_SETTINGS_BYTES), 0o600);
  return name;
}

/** Backs the file up (keepBackup) before it is changed; null when it does not exist yet. */
async function backup(read: SettingsRead): Promise<string | null> {
  return read.exists ? keepBackup(read.target) : null;
}

/** Writes the edited text (bytes one per character), backup first, with the file's own mode. */
async function write(read: SettingsRead, text: string): Promise<string | null> {
  if (!read.exists) await mkdir(dirname(read.target), { recursive: true, mode: 0o700 });
  const saved = await backup(read);
  await writeFileAtomic(read.target, Buffer.from(text, 'latin1'), read.mode ?? 0o600);
  return saved;
}

/**
 * Puts the file back as it was read, byte for byte and with its mode, or
 * removes it when it did not exist (an edit undone: Codex's trust could not be
 * written).
 */
export async function restoreSettings(read: SettingsRead): Promise<void> {
  if (read.exists) await writeFileAtomic(read.target, Buffer.from(read.text, 'latin1'), read.mode ?? 0o600);
  else await unlink(read.target).catch(() => undefined);
}

function result(
  action: HookResult['action'],
  read: SettingsRead,
  data: Json,
  command: string,
  change: HookChange,
  backupFile: string | null,
  message: string,
  events: readonly HookSpec[] = [],
): HookResult {
  const found = findStampHooks(data).map((f) => f.command);
  return {
    action,
    file: read.file,
    change,
    installed: found.length > 0,
    command,
    found,
    missingEvents: events.filter((e) => findOurHooks(data, e.event).length === 0).map((e) => e.event),
    created: action === 'install' && !read.exists,
    backup: backupFile,
    message,
  };
}

/**
 * Refuses a file with a key twice on the way to one of our hooks (`hooks`,
 * `SessionStart`, …) or inside it: Claude Code reads the last copy, an edit
 * would change the first, and the file would say one thing and do another.
 */
function refuseDuplicateKeys(read: SettingsRead, events: readonly string[]): void {
  const structure = structureOf(read.text, read.comments);
  let dup: ReturnType<typeof duplicateKeyOnPath> = null;
  for (const event of events) {
    dup = duplicateKeyOnPath(structure, eventPath(event), utf8OfBytes);
    if (dup) break;
  }
  if (!dup) return;
  const where = dup.path.length > 0 ? ` in ${dup.path.join('.')}` : '';
  throw new FleetError(
    `${read.file}: the key ${JSON.stringify(dup.key)} appears twice${where} (lines ${dup.lines[0]} and ${dup.lines[1]}); the agent reads only the last, so an edit could land in the copy it ignores: merge them into one; nothing changed`,
  );
}

/** SessionStart's hook of this command, in Claude Code's group (the default spec of installHook). */
function stampSpec(command: string, group: Json = claudeHookGroup(command)): HookSpec {
  return { event: HOOK_EVENT, command, group };
}

/** One event's hooks of ours made what the spec says, in the draft: added, pointed at this helper, duplicates gone. */
function installOne(jsonc: Jsonc, draft: Draft, spec: HookSpec): { text: string; said: string | null } {
  const found = findOurHooks(draft.data, spec.event);
  const exact = found.find((f) => f.command === spec.command);
  if (exact && found.length === 1) return { text: draft.text, said: null };
  if (found.length === 0) return { text: addHook(jsonc, draft, spec.event, spec.group), said: `added the ${spec.event} hook \`${spec.command}\`` };
  const keep = exact ?? found[0]!;
  const text = removeHooks(
    jsonc,
    keep.command === spec.command ? draft.text : replaceCommand(jsonc, draft, spec.event, keep, spec.command),
    draft.data,
    spec.event,
    found.filter((f) => f !== keep),
    draft.comments,
  );
  if (keep.command === spec.command) return { text, said: `removed ${found.length - 1} duplicate ${spec.event} hook(s) of ours` };
  const old = found.filter((f) => f.command !== spec.command).map((f) => `\`${f.command}\``);
  return { text, said: `updated the ${spec.event} hook to \`${spec.command}\` (was ${old.join(', ')})` };
}

/** The sentence of several edits: the first whole, the state hooks' events after it. */
function sayEdits(said: readonly string[]): string {
  if (said.length <= 1) return said[0] ?? '';
  const [first, ...rest] = said;
  const added = rest.filter((s) => s.startsWith('added the ')).map((s) => /^added the (\S+) hook/.exec(s)?.[1]);
  const other = rest.filter((s) => !s.startsWith('added the '));
  return [first, ...(added.length ? [`the state hooks of ${added.join(', ')}`] : []), ...other].join('; ');
}

/**
 * Adds our hooks once: the stamp on SessionStart (`specs[0]`, default
 * Claude Code's) and the state hooks of `specs` after it; an older hook of
 * ours (another helper path) is pointed at this helper; duplicates go, and so
 * do hooks of ours on events no spec names (an older version's). One write,
 * one backup. `group`: the hook group as the agent's file takes it.
 */
export async function installHook(file: string, command: string, group: Json = claudeHookGroup(command), syntax: SettingsSyntax = {}, events: readonly HookSpec[] = []): Promise<HookResult> {
  const specs = [stampSpec(command, group), ...events];
  const read = await readSettings(file, syntax);
  refuseDuplicateKeys(read, [...new Set([...specs.map((x) => x.event), ...eventsWithOurs(read.data)])]);
  const jsonc = await loadJsonc();
  const draft: Draft = { text: read.text, data: read.data, comments: read.comments };
  const said: string[] = [];
  const apply = (text: string) => {
    draft.text = text;
    draft.data = parseSettingsText(text, read.comments) as Json;
  };
  for (const spec of specs) {
    const r = installOne(jsonc, draft, spec);
    if (r.said === null) continue;
    apply(r.text);
    said.push(r.said);
  }
  const wanted = new Set(specs.map((x) => x.event));
  for (const event of eventsWithOurs(draft.data).filter((e) => !wanted.has(e))) {
    apply(removeHooks(jsonc, draft.text, draft.data, event, findOurHooks(draft.data, event), read.comments));
    said.push(`removed our ${event} hook (no longer used)`);
  }
  if (said.length === 0) return result('install', read, read.data, command, 'unchanged', null, `already installed in ${file}; nothing changed`);
  const saved = await write(read, draft.text);
  const where = read.exists ? `in ${file} (backup: ${saved})` : `in new file ${file}`;
  const change: HookChange = said[0]!.startsWith('added the SessionStart') ? 'added' : 'updated';
  return result('install', read, draft.data, command, change, saved, `${sayEdits(said)} ${where}`, events);
}

/** Removes every hook of ours (the stamp and the state hooks), and nothing else. */
export async function uninstallHook(file: string, command: string, syntax: SettingsSyntax = {}): Promise<HookResult> {
  const read = await readSettings(file, syntax);
  const events = eventsWithOurs(read.data);
  refuseDuplicateKeys(read, [...new Set([HOOK_EVENT, ...events])]);
  if (events.length === 0) {
    return result('uninstall', read, read.data, command, 'absent', null, `not installed in ${file}; nothing changed`);
  }
  const jsonc = await loadJsonc();
  let text = read.text;
  let data = read.data;
  const stamps = findStampHooks(read.data).map((f) => `\`${f.command}\``);
  for (const event of events) {
    text = removeHooks(jsonc, text, data, event, findOurHooks(data, event), read.comments);
    data = parseSettingsText(text, read.comments) as Json;
  }
  const saved = await write(read, text);
  const others = events.filter((e) => e !== HOOK_EVENT);
  const what = [stamps.length ? `the SessionStart hook ${stamps.join(', ')}` : '', others.length ? `the state hooks of ${others.join(', ')}` : ''].filter(Boolean).join(' and ');
  return result('uninstall', read, data, command, 'removed', saved, `removed ${what} from ${file} (backup: ${saved})`);
}

/** Is a stamp hook installed, and the state hooks of `events`? Reads only. */
export async function hookStatus(file: string, command: string, syntax: SettingsSyntax = {}, events: readonly HookSpec[] = []): Promise<HookResult> {
  const read = await readSettings(file, syntax);
  const found = findStampHooks(read.data).map((f) => f.command);
  let message: string;
  if (found.length === 0) message = `not installed in ${file} (run: tmux-fleet hooks install)`;
  else if (found.includes(command)) message = `installed in ${file}: \`${command}\``;
  else if (found.some((f) => runsSameHelper(f, command))) message = `installed in ${file}: \`${found.find((f) => runsSameHelper(f, command))}\``;
  else message = `installed in ${file}: \`${found[0]}\`, another helper than this one (\`${command}\`); tmux-fleet hooks install points it here`;
  return result('status', read, read.data, command, found.length > 0 ? 'unchanged' : 'absent', null, message, events);
}