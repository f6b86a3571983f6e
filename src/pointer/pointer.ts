// The spawner pointer (docs/worktrees-and-pointer.md#the-pointer): a pure function of the
// parent's task record. It names where the spawner works, never what is there:
// no file is read, no contents are copied.
import type { Task } from '../tasks/schema';

/** The fields of a parent record the pointer reads. */
export type PointerParent = Pick<Task, 'driverSid' | 'operatorSid' | 'label' | 'worktree' | 'branch'>;

/** Short session id: the first 8 characters of the owner. */
export const SHORT_SID_LENGTH = 8;

const BARE = /^[A-Za-z0-9._\/-]+$/;

/**
 * Renders a value verbatim but unambiguously, on one line: JSON string quoting
 * (quotes, backslashes and every control character escaped, so a newline is
 * the two characters `\n`), plus the Unicode line breaks JSON leaves alone.
 */
export function quoteValue(value: string): string {
  return JSON.stringify(value).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A session id as shown: bare when it is plain (a UUID prefix), else quoted like any other value. */
function showSid(sid: string): string {
  return BARE.test(sid) ? sid : quoteValue(sid);
}

/**
 * The one pointer line for a parent record, or null when there is nothing to
 * say: no parent, or a parent whose record carries no worktree.
 */
export function pointerLine(parent: PointerParent | null | undefined): string | null {
  if (!parent) return null;
  const worktree = parent.worktree;
  if (worktree === undefined || worktree === '') return null;
  // Same rule as ownerSid(): driverSid, else an older record's operatorSid.
  const owner = parent.driverSid ?? parent.operatorSid ?? '';
  const who = owner === '' ? 'a session whose id is not known yet' : `session ${showSid(owner.slice(0, SHORT_SID_LENGTH))}`;
  const label = parent.label !== undefined && parent.label !== '' ? ` (${quoteValue(parent.label)})` : '';
  const branch = parent.branch !== undefined && parent.branch !== '' ? `on branch ${quoteValue(parent.branch)}` : 'on a branch it did not record';
  return (
    `Spawner: you were started by ${who}${label}, which works in the worktree ${quoteValue(worktree)} ${branch}. ` +
    `Your own worktree branches from the base, so that session's uncommitted or unmerged work is not in it: ` +
    `read it there when your task needs it, and never write to it (it is a live tree whose owner is mid-edit).`
  );
}

/**
 * The task's acceptance items (`spawn --accept`) as the gate the Driver works
 * to, one line each (a newline in an item cannot start another); null for none.
 */
export function acceptanceGate(items: readonly string[]): string | null {
  if (items.length === 0) return null;
  const lines = items.map((t) => `- ${t.replace(/[\r\n\u0085\u2028\u2029]+/g, ' ').trim()}`);
  return ['Acceptance gate: the task is done when each of these holds; check each before you call it done:', ...lines].join('\n');
}

/** The launch prompt: the prompt text, then the acceptance gate and the pointer when there are, a blank line apart. */
export function launchPrompt(promptText: string, pointer: string | null | undefined, acceptance: readonly string[] = []): string {
  const after = [acceptanceGate(acceptance), pointer].filter((x): x is string => !!x);
  if (after.length === 0) return promptText;
  const text = promptText.replace(/\s+$/, '');
  return [...(text === '' ? [] : [text]), ...after].join('\n\n');
}
