// The one serializer: every write of task.json goes through here.
import { scanJson, type JsonSpan } from '../json-text';
import { ownerSid, type Task } from './schema';

/**
 * Renders a task for disk. The nonce lives only while the owner is unknown:
 * whenever driverSid is non-empty it is dropped here, so no caller can forget.
 *
 * `previous`: the text the task was read from. Every value that still means
 * what it meant there is copied from it byte for byte (a key tmux-fleet does
 * not know comes back as it was, `12345678901234567890`, `1e2`, `"\u00e9"`,
 * duplicate keys and `__proto__` included); only what changed is written
 * anew. See docs/tasks.md#unknown-keys.
 */
export function serializeTask(task: Task, previous?: string): string {
  const out: Record<string, unknown> = { ...task };
  if (ownerSid(task) !== '') delete out.spawnNonce;
  let span: JsonSpan | null = null;
  if (previous !== undefined) {
    try {
      span = scanJson(previous);
    } catch {
      span = null;
    }
  }
  if (span === null || span.kind !== 'object') return `${JSON.stringify(out, null, 2)}\n`;
  return `${render(out, span, previous as string, '')}\n`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/** JSON.stringify(value, null, 2) at a nesting depth: what a value without a previous text becomes. */
function fresh(value: unknown, indent: string): string {
  const s = JSON.stringify(value, null, 2);
  return s === undefined ? 'null' : s.replace(/\n/g, `\n${indent}`);
}

/** What a span means, as JSON.stringify writes it (duplicates collapsed, numbers normalized). */
function meaning(span: JsonSpan, text: string): string {
  return JSON.stringify(JSON.parse(text.slice(span.start, span.end)));
}

const sameMeaning = (value: unknown, span: JsonSpan, text: string) => JSON.stringify(value) === meaning(span, text);

function render(value: unknown, span: JsonSpan | null, text: string, indent: string): string {
  if (span === null) return fresh(value, indent);
  if (sameMeaning(value, span, text)) return text.slice(span.start, span.end);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v, i) => render(v, span.kind === 'array' ? (span.items[i] ?? null) : null, text, inner));
    return `[\n${items.map((s) => inner + s).join(',\n')}\n${indent}]`;
  }
  if (!isPlainObject(value) || span.kind !== 'object') return fresh(value, indent);

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
    if (same.length > 1 && sameMeaning(value[key], last.value, text)) {
      // Duplicates that still mean the value read (the last one wins): every one kept, in place.
      entries.push(raw(m));
      if (m === last) done.add(key);
      continue;
    }
    entries.push(`${text.slice(m.keyStart, m.keyEnd)}: ${render(value[key], last.value, text, inner)}`);
    done.add(key);
  }
  const known = new Set(span.members.map((m) => m.key));
  for (const key of Object.keys(value)) {
    if (known.has(key) || value[key] === undefined) continue;
    entries.push(`${JSON.stringify(key)}: ${fresh(value[key], inner)}`);
  }
  if (entries.length === 0) return '{}';
  return `{\n${entries.map((e) => inner + e).join(',\n')}\n${indent}}`;
}
