// Toasts: a message shown on the clients attached to a session
// (display-message -c <client> -d <@fleet-message-time>; tmux's own
// display-time, 750 ms by default, is too short to read a hop). Control-mode
// clients draw nothing and are skipped.
import { messageTimeMs } from '../options';
import { sessionTarget } from './args';
import { applyChanges, toastCommand, type Toast } from './apply';
import { parseRows, type Tmux } from './client';
import { CLIENT_FIELDS, type ClientSnap } from './snapshot';

/** The toasts for one session's clients, from a client list (e.g. a snapshot's), each shown for @fleet-message-time: pure. */
export function toastsFor(clients: readonly Pick<ClientSnap, 'name' | 'session' | 'control' | 'messageTime'>[], session: string, text: string): Toast[] {
  return clients
    .filter((c) => c.session === session && c.control !== '1' && c.name !== '')
    .map((c) => ({ client: c.name, text, durationMs: messageTimeMs(c.messageTime) }));
}

/** What every toast of ours starts with: said once when toasts are joined. */
const TOAST_PREFIX = 'fleet: ';

/**
 * One toast per client, in order: a client shows one message at a time and
 * each display-message replaces the one before, so the toasts one write sends
 * a client are joined (`fleet: work came back to 5ab1 · job 7e57ab1e waits:
 * permission prompt`), the same text once, shown for the longest duration
 * (docs/status.md#toasts). Pure.
 */
export function oneToastPerClient(toasts: readonly Toast[]): Toast[] {
  const byClient = new Map<string, { texts: string[]; durationMs: number | undefined }>();
  for (const t of toasts) {
    const was = byClient.get(t.client);
    if (!was) {
      byClient.set(t.client, { texts: [t.text], durationMs: t.durationMs });
      continue;
    }
    if (!was.texts.includes(t.text)) was.texts.push(t.text);
    if (t.durationMs !== undefined) was.durationMs = Math.max(was.durationMs ?? 0, t.durationMs);
  }
  return [...byClient].map(([client, { texts, durationMs }]) => {
    const [first = '', ...rest] = texts;
    const lead = first.startsWith(TOAST_PREFIX);
    const text = [first, ...rest.map((t) => (lead && t.startsWith(TOAST_PREFIX) ? t.slice(TOAST_PREFIX.length) : t))].join(' · ');
    return durationMs === undefined ? { client, text } : { client, text, durationMs };
  });
}

/** The clients attached to one session: one list-clients call. No session, no clients. */
export async function sessionClients(tmux: Tmux, session: string): Promise<ClientSnap[]> {
  const keys = Object.keys(CLIENT_FIELDS) as (keyof typeof CLIENT_FIELDS)[];
  const r = await tmux.tryRun(['list-clients', '-t', sessionTarget(session), '-F', keys.map((k) => CLIENT_FIELDS[k]).join('\t')]);
  if (r.exitCode !== 0) return [];
  return parseRows(r.stdout, keys);
}

/**
 * Toasts every (non-control) client attached to a session: one list-clients
 * call, then all display-messages chained in one call. Returns how many
 * clients were toasted. Text is plain ('#' is doubled on the way).
 */
export async function toastSession(tmux: Tmux, session: string, text: string): Promise<number> {
  const toasts = toastsFor(await sessionClients(tmux, session), session, text);
  if (toasts.length === 0) return 0;
  try {
    await applyChanges(tmux, [], toasts);
    return toasts.length;
  } catch {
    // A client detached between the two calls and the chain stopped there: one by one.
    let n = 0;
    for (const t of toasts) {
      const r = await tmux.tryRun(toastCommand(t));
      if (r.exitCode === 0) n++;
    }
    return n;
  }
}
