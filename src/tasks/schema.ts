// task.json, validated with zod. Every object is loose: keys this project does
// not know are kept and written back verbatim.
import * as z from '../zod';

// One instance per kind of field, shared by every field of that kind: a zod
// schema is immutable, and building one costs start-up time on every call.
const text = z.string();
const optionalText = z.optional(text);

export const AcceptanceItem = z.looseObject({
  text,
  addedBy: text,
  addedAt: text,
});

export const Handover = z.looseObject({
  from: text,
  to: text,
  at: text,
  reason: text,
  pane: optionalText,
});

export const NONCE_RE = /^[0-9a-f]{32}$/;

export const TaskSchema = z.looseObject({
  slug: text,
  driverSid: optionalText,
  /** Older records name the owner operatorSid. */
  operatorSid: optionalText,
  driverPane: optionalText,
  spawnNonce: z.optional(z.string().check(z.regex(NONCE_RE, 'must be 32 lowercase hex characters'))),
  driverPid: z.optional(z.number().check(z.int(), z.positive())),
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
  acceptance: z.optional(z.array(AcceptanceItem)),
  priorDriverSid: optionalText,
  driverEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  handovers: z.optional(z.array(Handover)),
  createdAt: optionalText,
  updatedAt: optionalText,
  /** Set while the task is archived (`done`, `gc`); `reopen` removes it (docs/tasks.md#archived-tasks). */
  archivedAt: optionalText,
});

export type Task = z.infer<typeof TaskSchema>;
export type AcceptanceItem = z.infer<typeof AcceptanceItem>;
export type Handover = z.infer<typeof Handover>;

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
