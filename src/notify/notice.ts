// What a notification says (docs/notify.md#events): an agent starts waiting,
// finishes a turn, or fails (Claude Code's "API unavailable", a Driver whose
// process died while it owned a task), and several of them as one. The
// supervisor's render finds them (src/status/notices.ts). Pure.
import type { AgentKind } from '../agents/kind';

export type NoticeKind = 'wait' | 'done' | 'error';

export interface Notice {
  kind: NoticeKind;
  /** The agent it is about: `fix-login`, `op-scratch`, `job 45a15a22`. */
  who: string;
  /** Its sentence: what it waits for, what failed, `finished`. */
  what: string;
  /** The tmux session it runs in (a job: the session that parked it, else none), and its pane when known. */
  session: string | null;
  pane: string | null;
  task: string | null;
  agent: AgentKind | null;
  /** A wait's key (Waiter.key): a held notification leaves out a wait that no longer holds. */
  key?: string;
  /** A background job's: it runs in no pane of its session, so only a window opened for it shows it. */
  job?: string | null;
}

/** Claude Code's words for a failed request (a job's `needs`, its state file's `detail`). */
const ERROR_RE = /^(API unavailable|API Error)\b/;

/** A wait that is an error: Claude Code gave up on the model and asks for a retry. */
export function isErrorWait(what: string): boolean {
  return ERROR_RE.test(what);
}

/** Each kind's verb: for one agent, for several of one kind, and for a count among other kinds. */
const VERB: Record<NoticeKind, [string, string, string]> = {
  wait: ['waits', 'wait', 'waiting'],
  done: ['finished', 'finished', 'finished'],
  error: ['failed', 'failed', 'failed'],
};

/** One notice as a sentence: `fix-login waits: approve Bash: ls -la /`, `fix-login finished its turn`. */
export function noticeText(n: Notice): string {
  if (n.kind === 'done') return `${n.who} finished its turn`;
  if (n.kind === 'error' && n.what === 'its Driver stopped') return `${n.who}: its Driver stopped`;
  return `${n.who} ${VERB[n.kind][0]}: ${n.what}`;
}

/**
 * Several notices as one notification (docs/notify.md#coalescing): one or two
 * are their sentences (`fix-login waits: approve Bash: ls · add-search finished its turn`);
 * more of one kind `3 agents wait: fix-login, add-search, +1`; of several
 * kinds, each kind's count and names: `2 waiting: a, b · 1 finished: c`,
 * but a single wait among them keeps its sentence (`2 failed: a, b ·
 * c waits: approve Bash: ls`). The same sentence twice is said once.
 */
export function coalesce(all: readonly Notice[], names = 2): string {
  // One agent's same news twice (two turns ended while the notice was held) is said once.
  const seen = new Set<string>();
  const notices = all.filter((n) => {
    const text = `${n.kind}\0${noticeText(n)}`;
    return !seen.has(text) && !!seen.add(text);
  });
  if (notices.length === 0) return '';
  if (notices.length <= 2) return notices.map(noticeText).join(' · ');
  const kinds: NoticeKind[] = ['error', 'wait', 'done'];
  const parts: string[] = [];
  const mixed = kinds.filter((k) => notices.some((n) => n.kind === k)).length > 1;
  for (const kind of kinds) {
    const of = notices.filter((n) => n.kind === kind);
    if (of.length === 0) continue;
    // One wait among other news keeps its sentence: what it waits for is what the person acts on.
    if (mixed && kind === 'wait' && of.length === 1) {
      parts.push(noticeText(of[0] as Notice));
      continue;
    }
    const who = [...new Set(of.map((n) => n.who))];
    const listed = who.slice(0, names).join(', ') + (who.length > names ? `, +${who.length - names}` : '');
    const [, many, among] = VERB[kind];
    parts.push(mixed ? `${of.length} ${among}: ${listed}` : `${of.length} agents ${many}: ${listed}`);
  }
  return parts.join(' · ');
}
