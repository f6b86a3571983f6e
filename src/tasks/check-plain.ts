// task.json validated without zod, for the fast bundle (`owner`, `stamp`):
// the same field table as the zod schema (src/tasks/schema.ts), the same
// result and the same first problem, worded as zod words it (English locale).
// test/tasks/check.test.ts holds the two to one answer (docs/tasks.md#validation).
import { type Checked, type Field, type Fields, type Task, TASK_FIELDS } from './schema';

type Path = (string | number)[];
class Problem {
  constructor(
    readonly path: Path,
    readonly message: string,
  ) {}
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** zod's name for what a value is (util.parsedType, as its English messages print it). */
function received(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : String(v);
  return typeof v;
}

const wrongType = (path: Path, expected: string, v: unknown) => new Problem(path, `Invalid input: expected ${expected}, received ${received(v)}`);

function checkValue(f: Field, v: unknown, path: Path): unknown {
  if (f.type === 'text') {
    if (typeof v !== 'string') throw wrongType(path, 'string', v);
    if (f.pattern && !f.pattern.re.test(v)) throw new Problem(path, f.pattern.message);
    return v;
  }
  if (f.type === 'int') {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw wrongType(path, 'number', v);
    if (!Number.isInteger(v)) throw wrongType(path, 'int', v);
    if (v > MAX_SAFE) throw new Problem(path, `Too big: expected int to be <=${MAX_SAFE}`);
    if (v < -MAX_SAFE) throw new Problem(path, `Too small: expected int to be >=-${MAX_SAFE}`);
    if (f.min === 1 && !(v > 0)) throw new Problem(path, 'Too small: expected number to be >0');
    if (f.min === 0 && !(v >= 0)) throw new Problem(path, 'Too small: expected number to be >=0');
    return v;
  }
  if (!Array.isArray(v)) throw wrongType(path, 'array', v);
  return v.map((item, i) => checkRecord(f.of, item, [...path, i]));
}

/** A new object: the table's fields in the table's order, then every other key as it was (but `__proto__`), as zod's loose object makes it. */
function checkRecord(fields: Fields, v: unknown, path: Path): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw wrongType(path, 'object', v);
  const input = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in fields) {
    const f = fields[key] as Field;
    if (!(key in input)) {
      // A missing field is checked as undefined, as zod does: "expected string, received undefined".
      if (!f.optional) checkValue(f, undefined, [...path, key]);
      continue;
    }
    out[key] = checkValue(f, input[key], [...path, key]);
  }
  for (const key in input) {
    if (key === '__proto__' || Object.hasOwn(fields, key)) continue;
    out[key] = input[key];
  }
  return out;
}

/** Checks a parsed task.json value against the task's fields. */
export function checkTask(raw: unknown): Checked {
  try {
    return { ok: true, task: checkRecord(TASK_FIELDS, raw, []) as Task };
  } catch (err) {
    if (err instanceof Problem) return { ok: false, path: err.path, message: err.message };
    throw err;
  }
}
