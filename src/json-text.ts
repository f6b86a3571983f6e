// Where each value sits in a JSON text: the spans the serializer copies back
// verbatim (a big integer, `1e2`, `"\u00e9"`, a duplicate key or `__proto__`
// keep the bytes they had; JSON.parse would rewrite or drop them), and the
// edits of a file the user owns (an agent's settings), made in its bytes, its
// comments kept where the agent takes them.
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

/**
 * Where the comments of a JSON text are, as strip-json-comments finds them
 * (what Gemini CLI 0.61.0 runs on its settings.json before JSON.parse): `//`
 * up to the end of its line (the line end not included), `/* … *\/` whole, an
 * unterminated one to the end; none inside a string. It looks at ASCII
 * characters only, so a text of bytes one per character gives the same ranges.
 */
export function commentRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let backslashes = 0;
      for (let j = i - 1; text[j] === '\\'; j--) backslashes++;
      if (backslashes % 2 === 0) inString = !inString;
    }
    if (inString) continue;
    if (c === '/' && text[i + 1] === '/') {
      let end = i + 2;
      while (end < text.length && text[end] !== '\n' && !(text[end] === '\r' && text[end + 1] === '\n')) end++;
      out.push([i, end]);
      i = end - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close === -1 ? text.length : close + 2;
      out.push([i, end]);
      i = end - 1;
    }
  }
  return out;
}

/**
 * The text with its comments blanked, each character of them a space but line
 * ends (the offsets of everything else unchanged): what a JSON reader sees of
 * a text with comments. `whitespaceKept`: blank only what is no white space,
 * as strip-json-comments does (Gemini then parses that).
 */
export function blankComments(text: string, ranges: readonly [number, number][], whitespaceKept = false): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + text.slice(start, end).replace(whitespaceKept ? /\S/g : /[^\r\n]/g, ' ');
    at = end;
  }
  return out + text.slice(at);
}

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
 * `comments`: where the text's comments are (commentRanges): the structure is
 * read with them blanked, and a comment inside what is removed stays, in its
 * place, with the white space after it: a removal never deletes what the user
 * wrote as a comment.
 */
export function removeAt(text: string, path: readonly (string | number)[], comments: readonly [number, number][] = []): string {
  if (path.length === 0) return text;
  const found = spanAt(scanJson(blankComments(text, comments)), path);
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
  let cut: [number, number];
  if (entries.length === 1) cut = [parent.start + 1, parent.end - 1];
  else if (spanIndex === entries.length - 1) cut = [(entries[spanIndex - 1] as readonly [number, number])[1], end];
  else cut = [start, (entries[spanIndex + 1] as readonly [number, number])[0]];
  return text.slice(0, cut[0]) + keptComments(text, cut, comments) + text.slice(cut[1]);
}

/**
 * The comments inside [from, to) of a text, as they stand, for what replaces
 * that range when it is removed: each with the white space after it (a line
 * comment's line end included), the first also with the white space before it
 * when the range starts right after a token (`{"a": 1, // note`). The last one's
 * white space after it goes when the text after the range starts with its own
 * (a line end for a line comment). '' when there is none.
 */
function keptComments(text: string, [from, to]: readonly [number, number], comments: readonly [number, number][]): string {
  const inside = comments.filter(([s, e]) => s >= from && e <= to);
  if (inside.length === 0) return '';
  const isSpace = (c: string | undefined) => c !== undefined && WS.has(c);
  let out = '';
  inside.forEach(([s, e], i) => {
    if (i === 0 && from > 0 && !isSpace(text[from - 1])) {
      let b = s;
      while (b > from && isSpace(text[b - 1])) b--;
      out += text.slice(b, s);
    }
    let after = e;
    while (after < to && isSpace(text[after])) after++;
    const last = i === inside.length - 1;
    const lineComment = text.startsWith('//', s);
    const rest = text.slice(to);
    const restStartsOwnLine = lineComment ? /^[ \t]*(?:\r?\n|$)/.test(rest) : rest === '' || isSpace(rest[0]);
    out += text.slice(s, last && restStartsOwnLine ? e : after);
  });
  return out;
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
 * ignore, or depend on which copy they keep. A text that is not JSON has none
 * (a text with comments: give it with them blanked). `decode`: as scanJson's.
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
