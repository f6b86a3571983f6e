// The dashboard's keys as a state machine (pure): every key of an input chunk
// is handled in order (a terminal delivers `jj` typed fast, or pasted, as one
// chunk), and each key may ask for an action the terminal loop carries out.
import type { DashboardRow } from './rows';
import { filterRows } from './rows';

export type DashboardAction =
  | { type: 'quit' }
  | { type: 'refresh' }
  | { type: 'switch'; session: string }
  | { type: 'attach'; jobId: string; parkedBy: string | null }
  | { type: 'logs'; jobId: string }
  | { type: 'stop'; jobId: string }
  /** Restore these tasks (docs/ownership.md#restore); null: every task whose Driver is gone. */
  | { type: 'restore'; slugs: string[] | null }
  /** An archived task back, its Driver resumed (reopen --resume). */
  | { type: 'reopen'; slug: string }
  /** A prompt typed into the row's agent (tmux-fleet send). */
  | { type: 'send'; target: string; text: string }
  /** The rows made again from what was read last (archived shown or hidden, grouping on or off). */
  | { type: 'rows' };

/** The keys of a chunk: escape sequences (arrows) whole, a lone ESC as Esc, every other character alone. */
export function splitKeys(chunk: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < chunk.length) {
    if (chunk[i] === '\x1b') {
      // CSI (ESC [ ... final) or SS3 (ESC O x): one key.
      const csi = /^\x1b\[[0-9;?]*[\x40-\x7e]/.exec(chunk.slice(i)) ?? /^\x1bO[\x40-\x7e]/.exec(chunk.slice(i));
      const seq = csi ? csi[0] : '\x1b';
      keys.push(seq);
      i += seq.length;
      continue;
    }
    const cp = chunk.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    keys.push(ch);
    i += ch.length;
  }
  return keys;
}

const DOWN = new Set(['j', '\x1b[B', '\x1bOB']);
const UP = new Set(['k', '\x1b[A', '\x1bOA']);
const ENTER = new Set(['\r', '\n']);

export const KEYS_HELP = 'j/k move · Enter open · s send · l logs · x stop · r restore/refresh · R restore all · a archived · b by repo · / filter · q quit';

export class DashboardKeys {
  private all: DashboardRow[] = [];
  /** The rows shown: all rows, or those the filter keeps. */
  rows: DashboardRow[] = [];
  selected = 0;
  filter = '';
  /** Typing a filter after `/`. */
  filtering = false;
  /** An action waiting for y/n. */
  confirm: { action: DashboardAction; question: string } | null = null;
  message = '';
  /** A prompt being typed for the row's agent (`s`): where it goes and what is typed so far. */
  sending: { target: string; text: string } | null = null;
  /** Archived tasks shown too (`a`). */
  showArchived = false;
  /** Rows grouped by repository (`R`). */
  grouped = false;

  constructor(rows: readonly DashboardRow[] = []) {
    this.setRows(rows);
  }

  /** New rows (a refresh): the selection stays on the same row when it is still there. */
  setRows(rows: readonly DashboardRow[]): void {
    const keep = this.rows[this.selected];
    this.all = [...rows];
    this.rows = filterRows(this.all, this.filter);
    const again = keep ? this.rows.findIndex((r) => rowId(r) === rowId(keep)) : -1;
    this.selected = again >= 0 ? again : Math.min(this.selected, Math.max(0, this.rows.length - 1));
  }

  current(): DashboardRow | undefined {
    return this.rows[this.selected];
  }

  /** Every key of the chunk, in order; the actions they ask for, in order. */
  feed(chunk: string): DashboardAction[] {
    const actions: DashboardAction[] = [];
    for (const key of splitKeys(chunk)) {
      const a = this.key(key);
      if (a) actions.push(a);
      if (a?.type === 'quit') break;
    }
    return actions;
  }

  /** One key. */
  key(key: string): DashboardAction | null {
    if (this.confirm) {
      const pending = this.confirm.action;
      this.confirm = null;
      if (key === 'y' || key === 'Y') return pending;
      this.message = 'cancelled';
      return null;
    }
    if (this.filtering) return this.filterKey(key);
    if (this.sending) return this.sendKey(key);
    this.message = '';
    if (key === 'q' || key === '\x03' || key === '\x1b') {
      if (key === '\x1b' && this.filter !== '') {
        this.setFilter('');
        return null;
      }
      return { type: 'quit' };
    }
    if (DOWN.has(key)) this.selected = Math.min(this.selected + 1, Math.max(0, this.rows.length - 1));
    else if (UP.has(key)) this.selected = Math.max(0, this.selected - 1);
    else if (key === 'g') this.selected = 0;
    else if (key === 'G') this.selected = Math.max(0, this.rows.length - 1);
    else if (key === '/') {
      this.filtering = true;
    } else if (ENTER.has(key)) return this.open();
    else if (key === 'l') return this.jobAction('logs');
    else if (key === 'x') {
      const row = this.current();
      if (!row?.jobId) return this.noJob(row);
      this.confirm = { action: { type: 'stop', jobId: row.jobId }, question: `stop background job ${row.jobId}? (y/n)` };
    } else if (key === 'r') {
      const row = this.current();
      if (row?.slug && row.kind === 'task' && row.archived) return { type: 'reopen', slug: row.slug };
      if (row?.slug && row.kind === 'task' && row.ownerGone) return { type: 'restore', slugs: [row.slug] };
      return { type: 'refresh' };
    } else if (key === 'R') return { type: 'restore', slugs: null };
    else if (key === 's') {
      const row = this.current();
      const target = row ? sendTarget(row) : null;
      if (!row) this.message = 'nothing selected';
      else if (row.archived) this.message = `task ${row.task} is archived (r reopens it)`;
      else if (!target) this.message = `${row.task}: no agent to send to on this row`;
      else this.sending = { target, text: '' };
    } else if (key === 'a') {
      this.showArchived = !this.showArchived;
      this.message = this.showArchived ? 'archived tasks shown' : 'archived tasks hidden';
      return { type: 'rows' };
    } else if (key === 'b') {
      this.grouped = !this.grouped;
      this.message = this.grouped ? 'grouped by repository' : 'not grouped';
      return { type: 'rows' };
    }
    return null;
  }

  /** Typing a prompt after `s`: Enter sends it, Esc (or Ctrl-C) drops it. */
  private sendKey(key: string): DashboardAction | null {
    const sending = this.sending as { target: string; text: string };
    if (ENTER.has(key)) {
      this.sending = null;
      if (sending.text.trim() === '') {
        this.message = 'nothing sent (empty)';
        return null;
      }
      return { type: 'send', target: sending.target, text: sending.text };
    }
    if (key === '\x1b' || key === '\x03') {
      this.sending = null;
      this.message = 'nothing sent';
    } else if (key === '\x7f' || key === '\b') sending.text = [...sending.text].slice(0, -1).join('');
    else if (key.length > 0 && !/^[\x00-\x1f\x7f]/.test(key)) sending.text += key;
    return null;
  }

  private filterKey(key: string): DashboardAction | null {
    if (ENTER.has(key)) this.filtering = false;
    else if (key === '\x1b' || key === '\x03') {
      this.filtering = false;
      this.setFilter('');
    } else if (key === '\x7f' || key === '\b') this.setFilter([...this.filter].slice(0, -1).join(''));
    else if (key.length > 0 && !/^[\x00-\x1f\x7f]/.test(key)) this.setFilter(this.filter + key);
    return null;
  }

  private setFilter(text: string): void {
    this.filter = text;
    this.rows = filterRows(this.all, text);
    this.selected = Math.min(this.selected, Math.max(0, this.rows.length - 1));
  }

  /**
   * Enter: a job opens in a tmux window, and so does the job of a row whose
   * parked work waits (the wait is answered there, docs/status.md#dashboard);
   * anything else switches to its tmux session.
   */
  private open(): DashboardAction | null {
    const row = this.current();
    if (!row) {
      this.message = 'nothing selected';
      return null;
    }
    if ((row.kind === 'job' || row.attention) && row.jobId) return { type: 'attach', jobId: row.jobId, parkedBy: row.parkedBy };
    if (row.session) return { type: 'switch', session: row.session };
    if (row.jobId) return { type: 'attach', jobId: row.jobId, parkedBy: row.parkedBy };
    this.message = row.slug ? `task ${row.slug} has no tmux session to switch to${row.ownerGone ? ' (r restores it)' : ''}` : 'no tmux session to switch to';
    return null;
  }

  private jobAction(type: 'logs'): DashboardAction | null {
    const row = this.current();
    if (!row?.jobId) return this.noJob(row);
    return { type, jobId: row.jobId };
  }

  private noJob(row: DashboardRow | undefined): null {
    this.message = row ? `${row.task}: no background job on this row` : 'nothing selected';
    return null;
  }

  /** The bottom line: a question, the filter being typed, a message, or the selected row's reason. */
  statusLine(): string {
    if (this.confirm) return this.confirm.question;
    if (this.filtering) return `/${this.filter}`;
    if (this.sending) return `send to ${this.sending.target} (Enter sends, Esc drops): ${this.sending.text}`;
    if (this.message) return this.message;
    return this.current()?.reason ?? '';
  }
}

function rowId(r: DashboardRow): string {
  return `${r.kind}\0${r.session ?? ''}\0${r.task}\0${r.jobId ?? ''}`;
}

/** What `s` sends to for a row: a task's slug, a job's id, a session's name (send refuses one that is not a Driver's); null when there is none. */
export function sendTarget(row: DashboardRow): string | null {
  if (row.kind === 'task') return row.slug;
  if (row.kind === 'job' || row.kind === 'parked') return row.jobId;
  return row.session;
}
