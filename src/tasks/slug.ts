// The slug rule: a slug names a directory and a tmux session, so nothing tmux
// rewrites or a path could abuse (docs/tasks.md#slugs).
import { UsageError } from '../errors';
import { echoInput } from '../text';

/** No `.` or `:` (tmux rewrites them in session names), no path tricks, no capitals. */
export const SLUG_RULE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isValidSlug(slug: string): boolean {
  return SLUG_RULE.test(slug);
}

export function assertSlug(slug: unknown): string {
  if (typeof slug === 'string' && SLUG_RULE.test(slug)) return slug;
  // Clipped: a 100 KB argument is not echoed whole.
  const shown = echoInput(typeof slug === 'string' ? slug : String(slug));
  throw new UsageError(
    `invalid task slug ${shown}: a slug is 1-63 characters of a-z, 0-9, '_' and '-', starting with a letter or digit (rule ${SLUG_RULE.source})`,
  );
}
