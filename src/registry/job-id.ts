// Claude Code's background job ids: the first 8 characters of the job's session
// id (a lowercase UUID), e.g. `a3f69ffe` (docs/hop.md#what-claude-code-writes).
// A job id becomes an argument of the agent (`claude attach <id>`, which takes
// no `--`) and part of a path (`<config>/jobs/<id>/`): anything else, an id
// starting with `-` above all, is not one. No imports: the registry schema, the
// dashboard and the jobs reader share it.
export const JOB_ID_RE = /^[0-9a-f]{8}$/;

export function isJobId(v: unknown): boolean {
  return typeof v === 'string' && JOB_ID_RE.test(v);
}
