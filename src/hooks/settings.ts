// Claude Code's settings.json and our SessionStart hook in it:
//   {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "'<helper>' stamp"}]}]}}
// Only the parts we touch are validated (loosely); every other key, hook and
// group is kept as it was. A file that is not valid JSON is never written.
import { chmod, copyFile, lstat, mkdir, readFile, realpath, stat } from '../fs-async';
import { dirname, join } from 'node:path';
import * as z from '../zod';
import { claudeConfigDir } from '../context';
import { FleetError } from '../errors';
import { writeFileAtomic } from '../fs-atomic';

export const HOOK_EVENT = 'SessionStart';

/** The hook command for a helper at `helperPath`: the path, shell-quoted, then `stamp`. */
export function stampCommand(helperPath: string): string {
  return `${shellQuote(helperPath)} stamp`;
}

/**
 * The helper file a stamp hook command runs, when it names one by path (as
 * stampCommand writes it: the path, shell-quoted, then `stamp`); null for a
 * bare `tmux-fleet` found on PATH, or a command of another shape.
 */
export function hookHelperPath(command: string): string | null {
  const quoted = /^'((?:[^']|'\\'')*)'\s+stamp(?:\s|$)/.exec(command);
  if (quoted) return (quoted[1] as string).replace(/'\\''/g, "'");
  const plain = /^(\/[A-Za-z0-9_./+@%,:=-]*)\s+stamp(?:\s|$)/.exec(command);
  return plain ? (plain[1] as string) : null;
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

function ourCommand(hook: unknown): string | null {
  const h = HookSchema.safeParse(hook);
  if (!h.success) return null;
  const { type, command } = h.data;
  return type === 'command' && typeof command === 'string' && isStampCommand(command) ? command : null;
}

export interface SettingsRead {
  file: string;
  /** The file the writes go to (settings.json may be a symlink into a dotfiles repo). */
  target: string;
  exists: boolean;
  data: Json;
}

/** Reads and loosely validates settings.json; a missing file reads as {}. */
export async function readSettings(file: string): Promise<SettingsRead> {
  let target = file;
  try {
    if ((await lstat(file)).isSymbolicLink()) target = await realpath(file);
  } catch {
    /* missing: written where named */
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, target, exists: false, data: {} };
    throw new FleetError(`${file}: cannot be read (${(err as Error).message})`);
  }
  if (text.trim() === '') return { file, target, exists: true, data: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const msg = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ');
    throw new FleetError(`${file}: not valid JSON (${msg}${lineColumn(text, msg)}); nothing changed`);
  }
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success || !isRecord(raw)) {
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new FleetError(
      `${file}: unexpected settings shape at ${path}: ${issue?.message ?? 'expected an object'}; nothing changed`,
    );
  }
  return { file, target, exists: true, data: raw };
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
  const found: FoundHook[] = [];
  const hooks = data.hooks;
  if (!isRecord(hooks)) return found;
  const groups = hooks[HOOK_EVENT];
  if (!Array.isArray(groups)) return found;
  groups.forEach((g, gi) => {
    const group = GroupSchema.safeParse(g);
    if (!group.success || !group.data.hooks) return;
    group.data.hooks.forEach((h, hi) => {
      const command = ourCommand(h);
      if (command !== null) found.push({ group: gi, hook: hi, command });
    });
  });
  return found;
}

/** Removes the given hooks; groups, the event list and `hooks` left empty by the removal go too. */
function removeHooks(data: Json, remove: FoundHook[]): Json {
  if (remove.length === 0) return data;
  const hooks = { ...(data.hooks as Json) };
  const groups = (hooks[HOOK_EVENT] as unknown[]).flatMap((g, gi) => {
    const mine = remove.filter((r) => r.group === gi).map((r) => r.hook);
    if (mine.length === 0) return [g];
    const group = g as Json;
    const kept = (group.hooks as unknown[]).filter((_, hi) => !mine.includes(hi));
    return kept.length === 0 ? [] : [{ ...group, hooks: kept }];
  });
  if (groups.length > 0) hooks[HOOK_EVENT] = groups;
  else delete hooks[HOOK_EVENT];
  const next: Json = { ...data, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

function addHook(data: Json, command: string): Json {
  const hooks = isRecord(data.hooks) ? { ...data.hooks } : {};
  const groups = Array.isArray(hooks[HOOK_EVENT]) ? [...(hooks[HOOK_EVENT] as unknown[])] : [];
  // No matcher: SessionStart fires on startup, resume, clear and compact, and
  // the session id changes on /clear, so every source must stamp.
  groups.push({ hooks: [{ type: 'command', command }] });
  hooks[HOOK_EVENT] = groups;
  return { ...data, hooks };
}

function replaceCommand(data: Json, at: FoundHook, command: string): Json {
  const hooks = { ...(data.hooks as Json) };
  const groups = [...(hooks[HOOK_EVENT] as unknown[])];
  const group = { ...(groups[at.group] as Json) };
  const list = [...(group.hooks as unknown[])];
  list[at.hook] = { ...(list[at.hook] as Json), command };
  group.hooks = list;
  groups[at.group] = group;
  hooks[HOOK_EVENT] = groups;
  return { ...data, hooks };
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
  created: boolean;
  backup: string | null;
  message: string;
}

function timestamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** Copies the file aside (settings.json.bak-<timestamp>, 0600) before it is changed. */
async function backup(read: SettingsRead): Promise<string | null> {
  if (!read.exists) return null;
  let name = `${read.target}.bak-${timestamp()}`;
  for (let i = 1; ; i++) {
    try {
      await copyFile(read.target, name, 1 /* COPYFILE_EXCL */);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i > 50) throw err;
      name = `${read.target}.bak-${timestamp()}-${i}`;
    }
  }
  await chmod(name, 0o600);
  return name;
}

async function write(read: SettingsRead, data: Json): Promise<string | null> {
  if (!read.exists) await mkdir(dirname(read.target), { recursive: true, mode: 0o700 });
  const saved = await backup(read);
  const mode = read.exists ? (await stat(read.target)).mode & 0o777 : 0o600;
  await writeFileAtomic(read.target, `${JSON.stringify(data, null, 2)}\n`, mode);
  return saved;
}

function result(
  action: HookResult['action'],
  read: SettingsRead,
  data: Json,
  command: string,
  change: HookChange,
  backupFile: string | null,
  message: string,
): HookResult {
  const found = findStampHooks(data).map((f) => f.command);
  return {
    action,
    file: read.file,
    change,
    installed: found.length > 0,
    command,
    found,
    created: action === 'install' && !read.exists,
    backup: backupFile,
    message,
  };
}

/** Adds our hook once; an older stamp hook (another helper path) is pointed at this helper; duplicates go. */
export async function installHook(file: string, command: string): Promise<HookResult> {
  const read = await readSettings(file);
  const found = findStampHooks(read.data);
  const exact = found.find((f) => f.command === command);
  if (exact && found.length === 1) {
    return result('install', read, read.data, command, 'unchanged', null, `already installed in ${file}; nothing changed`);
  }
  let data: Json;
  let change: HookChange;
  let what: string;
  if (found.length === 0) {
    data = addHook(read.data, command);
    change = 'added';
    what = `added the SessionStart hook \`${command}\``;
  } else {
    const keep = exact ?? found[0]!;
    data = removeHooks(
      keep.command === command ? read.data : replaceCommand(read.data, keep, command),
      found.filter((f) => f !== keep),
    );
    change = 'updated';
    const old = found.filter((f) => f.command !== command).map((f) => `\`${f.command}\``);
    what = `updated the SessionStart hook to \`${command}\` (was ${old.join(', ')})`;
    if (keep.command === command) what = `removed ${found.length - 1} duplicate SessionStart stamp hook(s)`;
  }
  const saved = await write(read, data);
  const where = read.exists ? `in ${file} (backup: ${saved})` : `in new file ${file}`;
  return result('install', read, data, command, change, saved, `${what} ${where}`);
}

/** Removes every stamp hook, and nothing else. */
export async function uninstallHook(file: string, command: string): Promise<HookResult> {
  const read = await readSettings(file);
  const found = findStampHooks(read.data);
  if (found.length === 0) {
    return result('uninstall', read, read.data, command, 'absent', null, `not installed in ${file}; nothing changed`);
  }
  const data = removeHooks(read.data, found);
  const saved = await write(read, data);
  const list = found.map((f) => `\`${f.command}\``).join(', ');
  return result('uninstall', read, data, command, 'removed', saved, `removed the SessionStart hook ${list} from ${file} (backup: ${saved})`);
}

/** Is a stamp hook installed? Reads only. */
export async function hookStatus(file: string, command: string): Promise<HookResult> {
  const read = await readSettings(file);
  const found = findStampHooks(read.data).map((f) => f.command);
  let message: string;
  if (found.length === 0) message = `not installed in ${file} (run: tmux-fleet hooks install)`;
  else if (found.includes(command)) message = `installed in ${file}: \`${command}\``;
  else message = `installed in ${file}: \`${found[0]}\`, another helper than this one (\`${command}\`); tmux-fleet hooks install points it here`;
  return result('status', read, read.data, command, found.length > 0 ? 'unchanged' : 'absent', null, message);
}
