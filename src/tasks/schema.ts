// task.json, validated with zod. Every object is loose: keys this project does
// not know are kept and written back verbatim.
import * as z from '../zod';

export const AcceptanceItem = z.looseObject({
  text: z.string(),
  addedBy: z.string(),
  addedAt: z.string(),
});

export const Handover = z.looseObject({
  from: z.string(),
  to: z.string(),
  at: z.string(),
  reason: z.string(),
  pane: z.optional(z.string()),
});

export const NONCE_RE = /^[0-9a-f]{32}$/;

export const TaskSchema = z.looseObject({
  slug: z.string(),
  driverSid: z.optional(z.string()),
  /** Older records name the owner operatorSid. */
  operatorSid: z.optional(z.string()),
  driverPane: z.optional(z.string()),
  spawnNonce: z.optional(z.string().check(z.regex(NONCE_RE, 'must be 32 lowercase hex characters'))),
  driverPid: z.optional(z.number().check(z.int(), z.positive())),
  driverProcStart: z.optional(z.string()),
  launcherSid: z.optional(z.string()),
  parentSid: z.optional(z.string()),
  label: z.optional(z.string()),
  cwd: z.optional(z.string()),
  worktree: z.optional(z.string()),
  branch: z.optional(z.string()),
  base: z.optional(z.string()),
  acceptance: z.optional(z.array(AcceptanceItem)),
  priorDriverSid: z.optional(z.string()),
  driverEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  handovers: z.optional(z.array(Handover)),
  createdAt: z.optional(z.string()),
  updatedAt: z.optional(z.string()),
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
