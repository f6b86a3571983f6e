// The one serializer: every write of task.json goes through here.
import { bytesSource, scanJson, textSource, type JsonSpan, type SourceText as Source } from '../json-text';
import { ownerSid, type Task } from './schema';

/**
 * Renders a task for disk. The nonce lives only while the owner is unknown:
 * whenever driverSid is non-empty it is dropped here, so no caller can forget.
 *
 * `previous`: the text (or the bytes) the task was read from. Every value that
 * still means what it meant there is copied from it byte for byte (a key
 * tmux-fleet does not know comes back as it was, `12345678901234567890`, `1e2`,
 * `"\u00e9"`, duplicate keys, `__proto__` and, given the bytes, bytes that are
 * no UTF-8 included); only what changed is written anew. The result is of the
 * same kind as `previous` (a string without one). See docs/tasks.md#unknown-keys.
 */
export function serializeTask(task: Task, previous?: string): string;
export function serializeTask(task: Task, previous: Buffer): Buffer;
export function serializeTask(task: Task, previous?: string | Buffer): string | Buffer {
  const out: Record<string, unknown> = { ...task };
  if (ownerSid(task) !== '') delete out.spawnNonce;
  const source = previous === undefined ? null : typeof previous === 'string' ? textSource(previous) : bytesSource(previous);
  const rendered = source === null ? `${JSON.stringify(out, null, 2)}\n` : renderWith(out, source);
  return Buffer.isBuffer(previous) ? Buffer.from(rendered, 'latin1') : rendered;
}

/** The task rendered against a previous source, in the source's representation. */
function renderWith(out: Record<string, unknown>, source: Source): string {
  let span: JsonSpan | null;
  try {
    span = scanJson(source.text, source.decode);
  } catch {
    span = null;
  }
  if (span === null || span.kind !== 'object') return source.encode(`${JSON.stringify(out, null, 2)}\n`);
  return `${render(out, span, source, '')}\n`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/** JSON.stringify(value, null, 2) at a nesting depth: what a value without a previous text becomes. */
function fresh(value: unknown, indent: string, src: Source): string {
  const s = JSON.stringify(value, null, 2);
  return src.encode(s === undefined ? 'null' : s.replace(/\n/g, `\n${indent}`));
}

/** What a span means, as JSON.stringify writes it (duplicates collapsed, numbers normalized). */
function meaning(span: JsonSpan, src: Source): string {
  return JSON.stringify(JSON.parse(src.decode(src.text.slice(span.start, span.end))));
}

const sameMeaning = (value: unknown, span: JsonSpan, src: Source) => JSON.stringify(value) === meaning(span, src);

function render(value: unknown, span: JsonSpan | null, src: Source, indent: string): string {
  if (span === null) return fresh(value, indent, src);
  const { text } = src;
  if (sameMeaning(value, span, src)) return text.slice(span.start, span.end);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v, i) => render(v, span.kind === 'array' ? (span.items[i] ?? null) : null, src, inner));
    return `[\n${items.map((s) => inner + s).join(',\n')}\n${indent}]`;
  }
  if (!isPlainObject(value) || span.kind !== 'object') return fresh(value, indent, src);

  const entries: string[] = [];
  const done = new Set<string>();
  const raw = (m: { keyStart: number; keyEnd: number; value: JsonSpan }) =>
    `${text.slice(m.keyStart, m.keyEnd)}: ${text.slice(m.value.start, m.value.end)}`;
  for (const m of span.members) {
    const { key } = m;
    // Never a key of ours, and JSON.parse or zod drop it: always kept as written.
    if (key === '__proto__' && !Object.hasOwn(value, key)) {
      entries.push(raw(m));
      continue;
    }
    if (done.has(key) || !Object.hasOwn(value, key) || value[key] === undefined) continue;
    const same = span.members.filter((o) => o.key === key);
    const last = same[same.length - 1] as (typeof same)[number];
    if (same.length > 1 && sameMeaning(value[key], last.value, src)) {
      // Duplicates that still mean the value read (the last one wins): every one kept, in place.
      entries.push(raw(m));
      if (m === last) done.add(key);
      continue;
    }
    entries.push(`${text.slice(m.keyStart, m.keyEnd)}: ${render(value[key], last.value, src, inner)}`);
    done.add(key);
  }
  const known = new Set(span.members.map((m) => m.key));
  for (const key of Object.keys(value)) {
    if (known.has(key) || value[key] === undefined) continue;
    entries.push(`${src.encode(JSON.stringify(key))}: ${fresh(value[key], inner, src)}`);
  }
  if (entries.length === 0) return '{}';
  return `{\n${entries.map((e) => inner + e).join(',\n')}\n${indent}}`;
}
