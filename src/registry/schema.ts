// A row of Claude Code's session registry (<pid>.json). Loose: unknown keys kept.
import * as z from '../zod';
import { JOB_ID_RE } from './job-id';

// Shared field schemas: zod schemas are immutable, and each one built costs start-up time.
const text = z.string();
const optionalText = z.optional(text);
const optionalTime = z.optional(z.union([text, z.number()]));
// A row naming a job id Claude Code would not write is not read (src/registry/job-id.ts).
const optionalJobId = z.optional(z.string().check(z.regex(JOB_ID_RE, 'must be 8 lowercase hex characters')));

/**
 * Strings of a kept row are cut at this length (src/registry/reader.ts); no
 * real value (a path, a sentence) reaches it. A session id is an identity,
 * never cut: a row with a longer one is malformed.
 */
export const MAX_KEPT_CHARS = 1024;

export const RegistryRowSchema = z.looseObject({
  pid: z.number().check(z.int(), z.positive()),
  sessionId: z.string().check(z.maxLength(MAX_KEPT_CHARS)),
  kind: optionalText,
  status: optionalText,
  waitingFor: optionalText,
  jobId: optionalJobId,
  parkedJobId: optionalJobId,
  spare: z.optional(z.boolean()),
  cwd: optionalText,
  name: optionalText,
  procStart: optionalText,
  startedAt: optionalTime,
  updatedAt: optionalTime,
  statusUpdatedAt: optionalTime,
  messagingSocketPath: optionalText,
  // Written by Claude Code 2.1.332 and later (docs/hop.md#what-claude-code-writes); all optional, older versions lack them.
  pidDomain: optionalText,
  tmux: optionalText,
  needs: optionalText,
  tempo: optionalText,
  state: optionalText,
});

export type RegistryRow = z.infer<typeof RegistryRowSchema>;

/** A row as read, with the file it came from. */
export interface RegistryEntry {
  file: string;
  row: RegistryRow;
}
