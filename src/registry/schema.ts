// A row of Claude Code's session registry (<pid>.json). Loose: unknown keys kept.
import * as z from '../zod';

const timeish = z.union([z.string(), z.number()]);

export const RegistryRowSchema = z.looseObject({
  pid: z.number().check(z.int(), z.positive()),
  sessionId: z.string(),
  kind: z.optional(z.string()),
  status: z.optional(z.string()),
  waitingFor: z.optional(z.string()),
  jobId: z.optional(z.string()),
  parkedJobId: z.optional(z.string()),
  spare: z.optional(z.boolean()),
  cwd: z.optional(z.string()),
  name: z.optional(z.string()),
  procStart: z.optional(z.string()),
  startedAt: z.optional(timeish),
  updatedAt: z.optional(timeish),
  statusUpdatedAt: z.optional(timeish),
  messagingSocketPath: z.optional(z.string()),
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
