// A job's state as read from its state file, and the wait it states
// (docs/hop.md#the-job-state-file). No imports but the job id rule: Follow, in the fast bundle of
// `owner`, reads it without loading the reader (src/registry/jobs.ts).

export { JOB_ID_RE } from './job-id';

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
