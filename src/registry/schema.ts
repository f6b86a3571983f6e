// A row of Claude Code's session registry (<pid>.json). Loose: unknown keys kept.
import { z } from 'zod';

const timeish = z.union([z.string(), z.number()]);

export const RegistryRowSchema = z.looseObject({
  pid: z.number().int().positive(),
  sessionId: z.string(),
  kind: z.string().optional(),
  status: z.string().optional(),
  waitingFor: z.string().optional(),
  jobId: z.string().optional(),
  parkedJobId: z.string().optional(),
  spare: z.boolean().optional(),
  cwd: z.string().optional(),
  name: z.string().optional(),
  procStart: z.string().optional(),
  startedAt: timeish.optional(),
  updatedAt: timeish.optional(),
  statusUpdatedAt: timeish.optional(),
  messagingSocketPath: z.string().optional(),
});

export type RegistryRow = z.infer<typeof RegistryRowSchema>;

/** A row as read, with the file it came from. */
export interface RegistryEntry {
  file: string;
  row: RegistryRow;
}
