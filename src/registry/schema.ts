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

/**
 * A registry time as milliseconds since the epoch, for ordering: numbers are
 * epoch milliseconds (or seconds, when small enough to be seconds), strings
 * ISO-8601. Unknown or unparseable: -Infinity (oldest).
 */
export function timeMs(v: string | number | undefined): number {
  if (typeof v === 'number') return Number.isFinite(v) ? (v < 1e11 ? v * 1000 : v) : -Infinity;
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return timeMs(n);
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : -Infinity;
  }
  return -Infinity;
}
