// task.json's fields, as one table: the zod schema (src/tasks/check.ts) and the
// fast bundle's plain validator (src/tasks/check-plain.ts) are both built from
// it, so the two cannot drift (docs/tasks.md#validation). Every object is
// loose: keys this project does not know are kept and written back verbatim.
// No zod here: `owner` imports this module, and building a zod schema costs
// start-up time (docs/budgets.md#owner-start-up).

/** A field's kind: text (optionally matching a pattern), a whole number of at least `min`, or a list of records. */
export type FieldKind =
  | { readonly type: 'text'; readonly pattern?: { readonly re: RegExp; readonly message: string } }
  | { readonly type: 'int'; readonly min: 0 | 1 }
  | { readonly type: 'list'; readonly of: Fields };
export type Field = FieldKind & { readonly optional?: true };
export type Fields = Readonly<Record<string, Field>>;

const text = { type: 'text' } as const;
const optionalText = { type: 'text', optional: true } as const;

export const NONCE_RE = /^[0-9a-f]{32}$/;

export const ACCEPTANCE_FIELDS = {
  text,
  addedBy: text,
  addedAt: text,
} as const satisfies Fields;

export const HANDOVER_FIELDS = {
  from: text,
  to: text,
  at: text,
  reason: text,
  pane: optionalText,
} as const satisfies Fields;

export const TASK_FIELDS = {
  slug: text,
  driverSid: optionalText,
  /** Older records name the owner operatorSid. */
  operatorSid: optionalText,
  driverPane: optionalText,
  spawnNonce: { type: 'text', pattern: { re: NONCE_RE, message: 'must be 32 lowercase hex characters' }, optional: true },
  driverPid: { type: 'int', min: 1, optional: true },
  driverProcStart: optionalText,
  /** The Driver's agent, as its process shows it: claude, codex or gemini (docs/ownership.md#agents). */
  driverAgent: optionalText,
  /** The background job the Driver's tab parked its work on, while it is parked (docs/ownership.md#liveness). */
  driverJobId: optionalText,
  /** The agent command the last spawn ran (--cmd, else @fleet-agent-cmd): restore runs it again (docs/ownership.md#restore). */
  agentCommand: optionalText,
  launcherSid: optionalText,
  parentSid: optionalText,
  label: optionalText,
  cwd: optionalText,
  /** The repository the task works in: its main checkout (docs/tasks.md#keys). */
  repo: optionalText,
  worktree: optionalText,
  branch: optionalText,
  base: optionalText,
  acceptance: { type: 'list', of: ACCEPTANCE_FIELDS, optional: true },
  priorDriverSid: optionalText,
  driverEpoch: { type: 'int', min: 0, optional: true },
  handovers: { type: 'list', of: HANDOVER_FIELDS, optional: true },
  createdAt: optionalText,
  updatedAt: optionalText,
  /** Set while the task is archived (`done`, `gc`); `reopen` removes it (docs/tasks.md#archived-tasks). */
  archivedAt: optionalText,
} as const satisfies Fields;

type ValueOf<F> = F extends { type: 'text' } ? string : F extends { type: 'int' } ? number : F extends { type: 'list'; of: infer O extends Fields } ? RecordOf<O>[] : never;
type Flat<T> = { [K in keyof T]: T[K] };
/** The record a field table describes: its required fields, its optional ones, and any other key, kept as it was. */
export type RecordOf<S extends Fields> = Flat<
  { -readonly [K in keyof S as S[K] extends { optional: true } ? never : K]: ValueOf<S[K]> } & {
    -readonly [K in keyof S as S[K] extends { optional: true } ? K : never]?: ValueOf<S[K]> | undefined;
  } & { [k: string]: unknown }
>;

export type Task = RecordOf<typeof TASK_FIELDS>;
export type AcceptanceItem = RecordOf<typeof ACCEPTANCE_FIELDS>;
export type Handover = RecordOf<typeof HANDOVER_FIELDS>;

/** A record checked against a field table: the value (a new object), or the first problem, its path and message as zod words them. */
export type Checked = { ok: true; task: Task } | { ok: false; path: (string | number)[]; message: string };

/** The owner's session id: driverSid, or operatorSid for a record that has only that; "" while pending. */
export function ownerSid(task: Task): string {
  if (task.driverSid !== undefined) return task.driverSid;
  return task.operatorSid ?? '';
}

export function isPending(task: Task): boolean {
  return ownerSid(task) === '';
}

/** Archived by `done` or `gc`: left out of `tasks`, the dashboard and `attention` (docs/tasks.md#archived-tasks). */
export function isArchived(task: Task | null | undefined): boolean {
  return typeof task?.archivedAt === 'string' && task.archivedAt !== '';
}
