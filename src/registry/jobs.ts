// What a background job says it needs, in Claude Code's own words: its state
// file <config>/jobs/<jobId>/state.json (docs/hop.md#the-job-state-file), as
// the JobState type, the wait it states (jobNeeds) and the reader. Read
// through the helper's one safe reader (no link followed, no FIFO opened, a
// size cap), only for job ids a registry row names, and joined to rows by job
// id alone. Follow, in the fast bundle of `owner`, uses jobNeeds from
// job-state.ts, which imports no zod; here the file's schema is built at the
// first read, not when the module loads.
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dirTrustProblem } from '../context';
import { readRegularFile, UnsafeFileError } from '../fs-safe';
import * as z from '../zod';
import { JOB_ID_RE } from './job-id';
import type { RegistryRow } from './schema';

export { jobNeeds, type JobState } from './job-state';
import type { JobState } from './job-state';

/** A state file is about 1.5 KB; anything near this is not one. */
export const MAX_JOB_STATE_BYTES = 256 * 1024;

export const JOB_STATE_FILE = 'state.json';

/**
 * The jobs directory of a registry directory: its sibling `jobs`. Claude
 * Code's registry is <config>/sessions and its jobs <config>/jobs, so an
 * overridden registry (TMUX_FLEET_REGISTRY, @fleet-registry) takes its jobs
 * from beside it.
 */
export function jobsDirOf(registryDir: string): string {
  return join(dirname(registryDir), 'jobs');
}

/** The fields tmux-fleet reads; the file holds many more (kept out: nothing else is used). Built at the first read. */
function makeStateFileSchema() {
  const optionalText = z.optional(z.nullable(z.string()));
  return z.looseObject({
    state: optionalText,
    tempo: optionalText,
    needs: optionalText,
    detail: optionalText,
    intent: optionalText,
    name: optionalText,
    sessionId: optionalText,
    updatedAt: z.optional(z.nullable(z.union([z.string(), z.number()]))),
  });
}
let stateFileSchema: ReturnType<typeof makeStateFileSchema> | null = null;

export function parseJobState(jobId: string, text: string): JobState | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = (stateFileSchema ??= makeStateFileSchema()).safeParse(json);
  if (!parsed.success) return null;
  const d = parsed.data;
  return {
    jobId,
    state: d.state ?? null,
    tempo: d.tempo ?? null,
    needs: d.needs ?? null,
    detail: d.detail ?? null,
    intent: d.intent ?? null,
    name: d.name ?? null,
    sessionId: d.sessionId ?? null,
    updatedAt: d.updatedAt ?? null,
  };
}

/**
 * The stat signature of a job's state file ('' when there is none to read):
 * an unchanged file is not read again, and the supervisor's poll compares it.
 */
export function stateFileSignature(dir: string, jobId: string): string {
  try {
    // The job's directory itself must be a directory, not a link to one elsewhere.
    // Another user's directory, or one others may write to, could hold a forged need (docs/tasks.md#file-modes).
    const d = lstatSync(join(dir, jobId), { throwIfNoEntry: false });
    if (!d || !d.isDirectory() || (d.mode & 0o022) !== 0 || (process.getuid !== undefined && d.uid !== process.getuid())) return '';
    const st = lstatSync(join(dir, jobId, JOB_STATE_FILE), { throwIfNoEntry: false });
    if (!st || !st.isFile()) return '';
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}

function readOne(dir: string, jobId: string): JobState | null {
  try {
    return parseJobState(jobId, readRegularFile(join(dir, jobId, JOB_STATE_FILE), MAX_JOB_STATE_BYTES));
  } catch (err) {
    if (err instanceof UnsafeFileError) return null;
    throw err;
  }
}

/**
 * The state files of these jobs (ids not job-id-shaped are never looked up).
 * The one way the helper reads the jobs directory: `cache` (a
 * CachedJobStates' map) keeps what an unchanged file said. A file that is
 * missing, not a regular file, over the cap or not valid is no state.
 */
export function readJobStates(
  dir: string,
  jobIds: Iterable<string>,
  cache?: Map<string, { sig: string; state: JobState | null }>,
): Map<string, JobState> {
  const out = new Map<string, JobState>();
  // The registry's rule: a jobs directory another user could write to is not read.
  if (dirTrustProblem(dir) !== null) return out;
  for (const jobId of new Set(jobIds)) {
    if (!JOB_ID_RE.test(jobId)) continue;
    const sig = stateFileSignature(dir, jobId);
    if (sig === '') {
      cache?.delete(jobId);
      continue;
    }
    const cached = cache?.get(jobId);
    const state = cached && cached.sig === sig ? cached.state : readOne(dir, jobId);
    // A file caught mid-write is read again next time, whatever its signature.
    if (state) cache?.set(jobId, { sig, state });
    else cache?.delete(jobId);
    if (state) out.set(jobId, state);
  }
  return out;
}

/** A long-lived reader (the supervisor): a state file whose inode, size and mtime are unchanged is not read again. */
export class CachedJobStates {
  private readonly cache = new Map<string, { sig: string; state: JobState | null }>();
  constructor(readonly dir: string) {}

  read(jobIds: Iterable<string>): Map<string, JobState> {
    const ids = [...jobIds];
    const keep = new Set(ids);
    for (const id of [...this.cache.keys()]) if (!keep.has(id)) this.cache.delete(id);
    return readJobStates(this.dir, ids, this.cache);
  }

  /** These jobs' state files looked at again (the others' kept as last read); the states of all of them. */
  readSome(jobIds: Iterable<string>): Map<string, JobState> {
    return readJobStates(this.dir, jobIds, this.cache);
  }
}

/** A row as the joins below take it: a registry row, with its job's state once attached (liveness.ts's LiveRow). */
interface RowWithJob {
  row: Pick<RegistryRow, 'jobId'>;
  job?: JobState;
}

/** The job ids rows name: their own (a job's row). */
export function rowJobIds(rows: readonly RowWithJob[]): string[] {
  const ids: string[] = [];
  for (const r of rows) if (r.row.jobId) ids.push(r.row.jobId);
  return ids;
}

/** Rows with their job's state attached (by job id only); rows of no job, or of a job with no state file, unchanged. */
export function withJobStates<R extends RowWithJob>(rows: readonly R[], states: ReadonlyMap<string, JobState>): R[] {
  if (states.size === 0) return rows as R[];
  return rows.map((r) => {
    const job = r.row.jobId ? states.get(r.row.jobId) : undefined;
    return job ? { ...r, job } : r;
  });
}

/** Rows read from `registryDir` with their jobs' state files (from its sibling `jobs`) attached. */
export function attachJobStates<R extends RowWithJob>(rows: readonly R[], registryDir: string): R[] {
  return withJobStates(rows, readJobStates(jobsDirOf(registryDir), rowJobIds(rows)));
}
