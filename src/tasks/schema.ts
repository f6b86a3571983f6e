// task.json, validated with zod. Every object is loose: keys this project does
// not know are kept and written back verbatim.
import { z } from 'zod';

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
  pane: z.string().optional(),
});

export const NONCE_RE = /^[0-9a-f]{32}$/;

export const TaskSchema = z.looseObject({
  slug: z.string(),
  driverSid: z.string().optional(),
  /** Older records name the owner operatorSid. */
  operatorSid: z.string().optional(),
  driverPane: z.string().optional(),
  spawnNonce: z.string().regex(NONCE_RE, 'must be 32 lowercase hex characters').optional(),
  driverPid: z.number().int().positive().optional(),
  driverProcStart: z.string().optional(),
  launcherSid: z.string().optional(),
  parentSid: z.string().optional(),
  label: z.string().optional(),
  cwd: z.string().optional(),
  worktree: z.string().optional(),
  branch: z.string().optional(),
  base: z.string().optional(),
  acceptance: z.array(AcceptanceItem).optional(),
  priorDriverSid: z.string().optional(),
  driverEpoch: z.number().int().nonnegative().optional(),
  handovers: z.array(Handover).optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
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
