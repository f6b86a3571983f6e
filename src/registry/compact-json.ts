// Long JSON strings cut before parsing (docs/hop.md#reading-the-registry): a
// row file of 256 KiB read as text and parsed whole puts the file and its long
// strings on the heap, in V8's large-object space, which only a full
// collection frees; a fleet's worth of such rows raised the supervisor's RSS
// well past its budget. The reader keeps strings of at most MAX_KEPT_CHARS
// anyway, so each string is cut, as bytes, a little after that, before parsing.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The escapes JSON allows after a backslash, besides `u`. */
const SIMPLE_ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));

const isHex = (b: number | undefined) => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/**
 * The text to parse for the JSON in `bytes`: each string literal holding more
 * than `keepUnits` characters cut after at least keepUnits + 1 of them (UTF-16
 * units, counted low: one per character start), at a character boundary, and
 * closed. What JSON.parse then gives has every string's first keepUnits + 1
 * characters as the whole text would give, and is longer than keepUnits where
 * the whole string was: a reader that cuts at keepUnits keeps the same. The
 * part left out is checked as JSON checks it (no control character, only
 * valid escapes); when it would not parse, or a string is not closed (a file
 * caught mid-write), the whole text is returned, so JSON.parse fails as it
 * would have. Pure: bytes in, text out (decoded as Buffer#toString decodes: each piece starts and ends at a character boundary).
 */
export function compactJsonText(bytes: Buffer, keepUnits: number): string {
  const whole = () => bytes.toString('utf8');
  const pieces: string[] = [];
  let copyFrom = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    if (bytes[i] !== QUOTE) {
      i++;
      continue;
    }
    // A string literal: its characters up to the closing quote.
    let j = i + 1;
    let chars = 0;
    let cutAt = -1;
    for (;;) {
      if (j >= n) return whole();
      const c = bytes[j] as number;
      if (c === QUOTE) break;
      if (c < 0x20) return whole();
      // A character starts here (a continuation byte never does): cut before it once enough came before.
      const starts = c < 0x80 || c >= 0xc0;
      if (starts && cutAt === -1 && chars > keepUnits) cutAt = j;
      if (c === BACKSLASH) {
        const e = bytes[j + 1];
        if (e === 0x75) {
          if (!isHex(bytes[j + 2]) || !isHex(bytes[j + 3]) || !isHex(bytes[j + 4]) || !isHex(bytes[j + 5])) return whole();
          j += 6;
        } else if (e !== undefined && SIMPLE_ESCAPES.has(e)) j += 2;
        else return whole();
        chars++;
        continue;
      }
      if (starts) chars++;
      j++;
    }
    if (cutAt !== -1) {
      // What follows is copied from the closing quote on: the part between is left out.
      pieces.push(bytes.toString('utf8', copyFrom, cutAt));
      copyFrom = j;
    }
    i = j + 1;
  }
  if (pieces.length === 0) return whole();
  pieces.push(bytes.toString('utf8', copyFrom));
  return pieces.join('');
}
