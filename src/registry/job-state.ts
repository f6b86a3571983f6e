// A background job's state (docs/hop.md#the-job-state-file) and the wait it
// states, without the reader (jobs.ts): follow, in `owner`'s fast bundle, needs
// jobNeeds alone, and the reader's zod is a file `owner` on a decided task
// does not read (docs/development.md#the-bundle).

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

