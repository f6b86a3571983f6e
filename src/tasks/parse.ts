// Reading task.json text: a file that is not a task record is named with the
// problem and never overwritten (docs/tasks.md#corrupt-files).
import { TaskFileError } from '../errors';
import { maxNesting } from '../json-text';
import { jsonErrorWithoutContent } from '../text';
import { checkTask } from './check';
import type { Task } from './schema';

/**
 * A task record nests three or four levels; a file nested deeper than this is
 * not one (and every recursive step, the serializer's included, would run out
 * of stack on it: docs/tasks.md#corrupt-files).
 */
export const MAX_TASK_DEPTH = 256;

/** Parses and validates task.json text; a TaskFileError names the file and the JSON position or the field's path. */
export function parseTaskText(text: string, file: string): Task {
  if (maxNesting(text) > MAX_TASK_DEPTH) throw new TaskFileError(file, `nested deeper than ${MAX_TASK_DEPTH} levels (not read)`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const msg = jsonErrorWithoutContent(err instanceof Error ? err.message : String(err));
    // V8 names the position for some syntax errors only ("Unexpected token 'x', ... is not valid JSON" has none).
    const where = /\bposition \d+/.test(msg) ? '' : ` at position ${jsonErrorOffset(text)}`;
    throw new TaskFileError(file, `not valid JSON (${msg}${where})`);
  }
  const result = checkTask(raw);
  if (!result.ok) {
    const path = result.path.length > 0 ? result.path.join('.') : '(top level)';
    throw new TaskFileError(file, `invalid task record at ${path}: ${result.message}`);
  }
  return result.task;
}

/** Offset of the first character at which text stops being JSON (text.length when it ends too early); -1 when it is JSON. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const word = (w: string) => {
    for (const c of w) {
      if (text[i] !== c) fail();
      i++;
    }
  };
  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  const digits = () => {
    if (!isDigit(text[i])) fail();
    while (isDigit(text[i])) i++;
  };
  const str = () => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') fail();
      i++;
      if (c === '"') return;
      if (c === '\\') {
        const e = text[i];
        if (e === 'u') {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail();
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail();
      }
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (close === '}') {
          ws();
          if (text[i] !== '"') fail();
          str();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === close) {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '"') return str();
    if (c === 't') return word('true');
    if (c === 'f') return word('false');
    if (c === 'n') return word('null');
    if (c !== '-' && !isDigit(c)) fail();
    if (c === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (pos) {
    if (typeof pos === 'number') return pos;
    throw pos;
  }
}
