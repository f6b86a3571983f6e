// Session ids as tmux-fleet accepts them (the judge, the stamp, the proofs). Claude Code's ids are UUIDs
// (background jobs: <jobId>-<rest>); anything with control characters, spaces,
// `#` or absurd length is refused before it reaches tmux or task.json.
export const SID_RE = /^[A-Za-z0-9][A-Za-z0-9._:+@-]{0,199}$/;

export function isValidSid(sid: unknown): sid is string {
  return typeof sid === 'string' && SID_RE.test(sid);
}

/** A sid shown in a message: verbatim when valid, else JSON-quoted and cut short. */
export function showSid(sid: string): string {
  return SID_RE.test(sid) ? sid : JSON.stringify(sid.length > 80 ? `${sid.slice(0, 80)}…` : sid);
}
