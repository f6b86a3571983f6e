// Where each value sits in a JSON text: the spans the serializer copies back
// verbatim (a big integer, `1e2`, `"\u00e9"`, a duplicate key or `__proto__`
// keep the bytes they had; JSON.parse would rewrite or drop them), and the
// edits of a file the user owns (an agent's settings), made in its bytes.
// See docs/tasks.md#unknown-keys.

/**
 * A text as it is edited: as read (a string), or a file's bytes one per
 * character (latin1), so that what an edit does not touch is written back as
 * the bytes it was, even bytes that are no UTF-8 (decoding would make U+FFFD
 * of them).
 */
export interface SourceText {
  text: string;
  /** Text of the source, as JSON.parse reads it. */
  decode(raw: string): string;
  /** Text written anew, in the source's representation. */
  encode(fresh: string): string;
}

/** A text of bytes one per character, as the UTF-8 text they are. */
export const utf8OfBytes = (raw: string): string => Buffer.from(raw, 'latin1').toString('utf8');
/** A text as its UTF-8 bytes, one per character. */
export const bytesOfUtf8 = (fresh: string): string => Buffer.from(fresh, 'utf8').toString('latin1');

export const textSource = (text: string): SourceText => ({ text, decode: (raw) => raw, encode: (fresh) => fresh });
export const bytesSource = (bytes: Buffer): SourceText => ({ text: bytes.toString('latin1'), decode: utf8OfBytes, encode: bytesOfUtf8 });

export type JsonSpan =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonSpan[] }
  | { kind: 'scalar'; start: number; end: number };

export interface JsonMember {
  /** The key, decoded. */
  key: string;
  /** The key as written, quotes included. */
  keyStart: number;
  keyEnd: number;
  value: JsonSpan;
}

const WS = new Set([' ', '\t', '\n', '\r']);

/**
 * The spans of a text that JSON.parse accepts; throws (a number, the offset) on
 * anything else. `decode` turns the text of a key into the text JSON.parse
 * reads (the identity; for a text holding bytes one per character, UTF-8 decoding).
 */
export function scanJson(text: string, decode: (raw: string) => string = (raw) => raw): JsonSpan {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && WS.has(text[i] as string)) i++;
  };
  const str = (): void => {
    if (text[i] !== '"') fail();
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) fail();
      i++;
      if (c === '"') return;
      if (c === '\\') i++;
    }
  };
  const value = (): JsonSpan => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const members: JsonMember[] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', start, end: i, members };
      }
      for (;;) {
        ws();
        const keyStart = i;
        str();
        const keyEnd = i;
        ws();
        if (text[i] !== ':') fail();
        i++;
        const v = value();
        members.push({ key: JSON.parse(decode(text.slice(keyStart, keyEnd))) as string, keyStart, keyEnd, value: v });
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return { kind: 'object', start, end: i, members };
        } else fail();
      }
    }
    if (c === '[') {
      i++;
      const items: JsonSpan[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', start, end: i, items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return { kind: 'array', start, end: i, items };
        } else fail();
      }
    }
    if (c === '"') {
      str();
      return { kind: 'scalar', start, end: i };
    }
    // true, false, null, a number: up to the next delimiter.
    while (i < text.length && !WS.has(text[i] as string) && !',:]}'.includes(text[i] as string)) i++;
    if (i === start) fail();
    return { kind: 'scalar', start, end: i };
  };
  const root = value();
  ws();
  if (i < text.length) fail();
  return root;
}

/**
 * How deep a JSON text nests (`{}` is 1, `[[1]]` is 2), in one pass that skips
 * strings: a reader that recurses checks it first.
 */
export function maxNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** The span at path (object keys: the last of duplicates, as JSON.parse reads; array indices), with its parent. */
function spanAt(root: JsonSpan, path: readonly (string | number)[]): { span: JsonSpan; parent: JsonSpan | null } | null {
  let span = root;
  let parent: JsonSpan | null = null;
  for (const seg of path) {
    parent = span;
    if (span.kind === 'object' && typeof seg === 'string') {
      const m = span.members.filter((x) => x.key === seg).pop();
      if (!m) return null;
      span = m.value;
    } else if (span.kind === 'array' && typeof seg === 'number') {
      const item = span.items[seg];
      if (!item) return null;
      span = item;
    } else return null;
  }
  return { span, parent };
}

/**
 * The text with the member or element at path removed, with its comma; the
 * bytes around it are untouched. The text unchanged when path names nothing.
 */
export function removeAt(text: string, path: readonly (string | number)[]): string {
  if (path.length === 0) return text;
  const found = spanAt(scanJson(text), path);
  if (!found || !found.parent || found.parent.kind === 'scalar') return text;
  const { parent } = found;
  // Each entry as [start, end]: a member from its key, an element from its value.
  const entries =
    parent.kind === 'object'
      ? parent.members.map((m) => [m.keyStart, m.value.end] as const)
      : parent.items.map((s) => [s.start, s.end] as const);
  const spanIndex =
    parent.kind === 'object' ? parent.members.findIndex((m) => m.value === found.span) : parent.items.indexOf(found.span);
  const [start, end] = entries[spanIndex] as readonly [number, number];
  if (entries.length === 1) return text.slice(0, parent.start + 1) + text.slice(parent.end - 1);
  if (spanIndex === entries.length - 1) return text.slice(0, (entries[spanIndex - 1] as readonly [number, number])[1]) + text.slice(end);
  return text.slice(0, start) + text.slice((entries[spanIndex + 1] as readonly [number, number])[0]);
}

/** A key written twice in one object: JSON.parse keeps the last copy, a text edit (jsonc-parser) finds the first. */
export interface DuplicateKey {
  /** Where the object holding the key is (object keys, array indices). */
  path: (string | number)[];
  key: string;
  /** 1-based lines of the first two copies. */
  lines: [number, number];
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/**
 * The first key written twice on the way to `path` (only the key followed, at
 * each level) or anywhere under it, or null. An editor that changes what is at
 * `path` must refuse such a text: its edit would land in a copy that readers
 * ignore, or depend on which copy they keep. A text that is not JSON has none.
 * `decode`: as scanJson's.
 * Shared by every config editor (Claude Code's settings.json and the others).
 */
export function duplicateKeyOnPath(text: string, path: readonly (string | number)[], decode?: (raw: string) => string): DuplicateKey | null {
  let root: JsonSpan;
  try {
    root = scanJson(text, decode);
  } catch {
    return null;
  }
  const twice = (span: JsonSpan, at: (string | number)[], only?: string): DuplicateKey | null => {
    if (span.kind !== 'object') return null;
    const seen = new Map<string, JsonMember>();
    for (const m of span.members) {
      if (only !== undefined && m.key !== only) continue;
      const first = seen.get(m.key);
      if (first) return { path: at, key: m.key, lines: [lineAt(text, first.keyStart), lineAt(text, m.keyStart)] };
      seen.set(m.key, m);
    }
    return null;
  };
  const under = (span: JsonSpan, at: (string | number)[]): DuplicateKey | null => {
    const here = twice(span, at);
    if (here) return here;
    if (span.kind === 'object') {
      for (const m of span.members) {
        const found = under(m.value, [...at, m.key]);
        if (found) return found;
      }
    } else if (span.kind === 'array') {
      for (const [i, item] of span.items.entries()) {
        const found = under(item, [...at, i]);
        if (found) return found;
      }
    }
    return null;
  };
  let span: JsonSpan | undefined = root;
  const at: (string | number)[] = [];
  for (const seg of path) {
    if (!span) return null;
    if (typeof seg === 'string') {
      const dup = twice(span, at, seg);
      if (dup) return dup;
      span = span.kind === 'object' ? span.members.find((m) => m.key === seg)?.value : undefined;
    } else span = span.kind === 'array' ? span.items[seg] : undefined;
    at.push(seg);
  }
  return span ? under(span, at) : null;
}
