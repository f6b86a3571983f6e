// task.json validated with zod: the schema built from the field table
// (src/tasks/schema.ts) on first use. The fast bundle holds
// src/tasks/check-plain.ts in its place (docs/tasks.md#validation).
import * as z from '../zod';
import { type Checked, type Field, type Fields, type Task, TASK_FIELDS } from './schema';

// One instance per kind of field, shared by every field of that kind: a zod
// schema is immutable, and building one costs start-up time.
let shared: { text: z.ZodMiniString; optionalText: z.ZodMiniOptional<z.ZodMiniString> } | undefined;

function fieldSchema(f: Field): z.ZodMiniType {
  shared ??= { text: z.string(), optionalText: z.optional(z.string()) };
  if (f.type === 'text' && !f.pattern) return f.optional ? shared.optionalText : shared.text;
  const base: z.ZodMiniType =
    f.type === 'text'
      ? z.string().check(z.regex(f.pattern!.re, f.pattern!.message))
      : f.type === 'int'
        ? z.number().check(z.int(), f.min === 1 ? z.positive() : z.nonnegative())
        : z.array(recordSchema(f.of));
  return f.optional ? z.optional(base) : base;
}

function recordSchema(fields: Fields): z.ZodMiniType {
  return z.looseObject(Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, fieldSchema(f)])));
}

let taskSchema: z.ZodMiniType | undefined;

/** Checks a parsed task.json value against the task's fields. */
export function checkTask(raw: unknown): Checked {
  taskSchema ??= recordSchema(TASK_FIELDS);
  const result = taskSchema.safeParse(raw);
  if (result.success) return { ok: true, task: result.data as Task };
  const issue = result.error.issues[0];
  return { ok: false, path: (issue?.path ?? []) as (string | number)[], message: issue?.message ?? 'does not validate' };
}
