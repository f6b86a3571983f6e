// A job's state as read from its state file, and the wait it states
// (docs/hop.md#the-job-state-file). No imports: Follow, in the fast bundle of
// `owner`, reads it without loading the reader (src/registry/jobs.ts).

/**
 * A job id: Claude Code's are 8 hex characters. Only ids of this shape are
 * looked up as a directory name or passed to a command; nothing with a dot or
 * a slash.
 */
export const JOB_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** A job's state as Claude Code wrote it (absent fields are null). */
export interface JobState {
  jobId: string;
  /** `working`, `blocked`, `stopped`, ... */
  state: string | null;
  /** `active`, `idle` or `blocked`. */
  tempo: string | null;
  /** What it needs from the user, e.g. `approve Bash: ls -la /`; present while blocked. */
  needs: string | null;
  detail: string | null;
  /** What the job was asked to do (its first prompt's words, as Claude Code keeps them). */
  intent: string | null;
  /** The job's title. */
  name: string | null;
  sessionId: string | null;
  updatedAt: string | number | null;
}

/** The wait a state file states: `tempo: "blocked"` with a `needs` sentence, else null. */
export function jobNeeds(job: Pick<JobState, 'tempo' | 'needs'> | null | undefined): string | null {
  if (!job || job.tempo !== 'blocked' || !job.needs || job.needs.trim() === '') return null;
  return job.needs;
}
