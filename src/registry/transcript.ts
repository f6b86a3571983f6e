// A Claude Code session's transcript as readable lines (docs/status.md#background-jobs):
// what the dashboard's `l` shows of a background job. Claude Code appends one JSON
// record a line to `<config>/projects/<dir>/<session id>.jsonl` (the directory is
// the session's cwd with every other character than a letter or digit as `-`;
// it is found by the file name). Shown: the user's prompts, the assistant's text
// and tool calls, tool results (their first line), Claude Code's own notices, and
// the session that continued the conversation. Everything else (attachments,
// API request records, snapshots) is left out. `claude logs <id>` prints the job's
// raw terminal output instead: cursor moves and redraws that only a terminal reads.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFileBytes, readRegularFileTail, UnsafeFileError } from '../fs-safe';
import { printable, withoutEscapes } from '../text';
import type { RegistryRow } from './schema';

/** How much of a transcript's end is read: its last records, never a whole multi-megabyte file. */
export const TRANSCRIPT_TAIL_BYTES = 2 * 1024 * 1024;
/** The most lines shown. */
export const TRANSCRIPT_LINES = 400;
/** A tool result or an input shows this many characters at most. */
const SNIPPET = 160;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Text on one line, cut to `max` characters. */
function oneLine(text: string, max = SNIPPET): string {
  const t = printable(withoutEscapes(text)).replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Each line of a text, with a prefix on the first and an indent on the rest; control characters gone. */
function block(prefix: string, text: string): string[] {
  const lines = withoutEscapes(text).replace(/\r\n?/g, '\n').split('\n').map((l) => printable(l).trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const indent = ' '.repeat([...prefix].length);
  return lines.map((l, i) => (i === 0 ? `${prefix}${l}` : l === '' ? '' : `${indent}${l}`));
}

/** What a tool call was asked to do, in a few words: its command, file, pattern or description. */
function toolInput(input: unknown): string {
  if (!isRecord(input)) return '';
  for (const k of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt']) {
    if (typeof input[k] === 'string' && input[k] !== '') return oneLine(input[k] as string);
  }
  return '';
}

/** The text of a tool result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isRecord(c) ? str(c.text) : '')).filter(Boolean).join(' ');
  return '';
}

/** The readable lines of one transcript record (none for records that are not conversation). */
export function recordLines(record: unknown): string[] {
  if (!isRecord(record) || record.isMeta === true) return [];
  const type = str(record.type);
  if (type === 'continued-in') return [`· continued in session ${oneLine(str(record.continuedInSessionId), 64)} (a background job)`];
  if (type === 'system') return str(record.content) ? block('· ', str(record.content)) : [];
  if (type !== 'user' && type !== 'assistant') return [];
  const message = isRecord(record.message) ? record.message : null;
  const content = message?.content;
  if (typeof content === 'string') return block(type === 'user' ? '› ' : '● ', content);
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && str(part.text)) out.push(...block(type === 'user' ? '› ' : '● ', str(part.text)));
    else if (part.type === 'tool_use') out.push(`  → ${oneLine(str(part.name), 40)}${toolInput(part.input) ? ` ${toolInput(part.input)}` : ''}`);
    else if (part.type === 'tool_result') {
      const first = resultText(part.content).split('\n').find((l) => l.trim() !== '') ?? '';
      out.push(`  ← ${part.is_error === true ? 'error: ' : ''}${oneLine(first) || '(no output)'}`);
    }
  }
  return out;
}

/** A transcript's text (JSON lines, possibly starting mid-record) as readable lines, the last `max`. */
export function transcriptLines(text: string, max = TRANSCRIPT_LINES): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // the record cut by the tail read, or one caught mid-write
    }
    out.push(...recordLines(record));
  }
  return out.slice(-max);
}

/** `<projects>/<any dir>/<sid>.jsonl`, or null. Only the file of that exact name is looked at. */
export function findTranscript(projectsDir: string, sid: string): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:+@-]{0,199}$/.test(sid)) return null;
  let dirs: string[];
  try {
    dirs = readdirSync(projectsDir);
  } catch {
    return null;
  }
  for (const dir of dirs) {
    const file = join(projectsDir, dir, `${sid}.jsonl`);
    try {
      readRegularFileTail(file, 0);
      return file;
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
    }
  }
  return null;
}

/** How much of a transcript's start is read to find a message: its first records. */
const CONVERSATION_HEAD_BYTES = 256 * 1024;

/**
 * Whether a transcript records a message to resume. Claude Code creates the
 * file with settings records (mode, permission mode, title) before the first
 * prompt is saved; `claude --resume` of such a session prints "No conversation
 * found with session ID" and exits (docs/ownership.md#resume). A file larger than
 * what is read is taken to hold one.
 */
export function transcriptHasConversation(file: string): boolean {
  let text: string;
  try {
    text = readRegularFileBytes(file, CONVERSATION_HEAD_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof UnsafeFileError && err.code === 'EFBIG') return true;
    throw err;
  }
  for (const line of text.split('\n')) {
    if (!line.includes('"type"')) continue;
    try {
      const type = (JSON.parse(line) as { type?: unknown }).type;
      if (type === 'user' || type === 'assistant') return true;
    } catch {
      // a record caught mid-write
    }
  }
  return false;
}

export interface JobTranscript {
  file: string;
  /** Whose transcript: the job's own, or the tab's it was forked from (the job has written none yet). */
  whose: 'job' | 'tab';
  lines: string[];
  /** The file's start was not read (it is larger than TRANSCRIPT_TAIL_BYTES). */
  cut: boolean;
}

/**
 * A background job's conversation: its own transcript (its session id, from
 * its registry row), else the transcript of the tab that parked it (the job is
 * a fork of that conversation, and Claude Code writes the job's own file only
 * as it records); null when neither is found.
 */
export function jobTranscript(projectsDir: string, rows: readonly Pick<RegistryRow, 'sessionId' | 'jobId' | 'parkedJobId' | 'kind'>[], jobId: string): JobTranscript | null {
  const job = rows.find((r) => r.jobId === jobId && r.kind === 'bg') ?? rows.find((r) => r.jobId === jobId);
  const tab = rows.find((r) => r.parkedJobId === jobId);
  const candidates: [string | undefined, 'job' | 'tab'][] = [
    [job?.sessionId, 'job'],
    [tab?.sessionId, 'tab'],
  ];
  for (const [sid, whose] of candidates) {
    const file = sid ? findTranscript(projectsDir, sid) : null;
    if (!file) continue;
    const { bytes, cut } = readRegularFileTail(file, TRANSCRIPT_TAIL_BYTES);
    return { file, whose, lines: transcriptLines(bytes.toString('utf8')), cut };
  }
  return null;
}

/**
 * The session a conversation continues in, when its transcript ends there:
 * the tab's transcript records `continued-in` (naming the background job's
 * session id) when it parks its work, and a message after it when the work
 * came back (docs/ownership.md#restore). Null when the last record of the
 * conversation is a message, or when none says so.
 */
export function continuedIn(file: string): string | null {
  const { bytes } = readRegularFileTail(file, TRANSCRIPT_TAIL_BYTES);
  const lines = bytes.toString('utf8').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (!line.includes('"type"')) continue;
    let record: { type?: unknown; continuedInSessionId?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue; // cut by the tail read, or caught mid-write
    }
    if (record.type === 'user' || record.type === 'assistant') return null;
    if (record.type === 'continued-in') return typeof record.continuedInSessionId === 'string' ? record.continuedInSessionId : null;
  }
  return null;
}
