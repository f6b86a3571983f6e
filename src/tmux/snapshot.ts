// One read of everything the status side needs: every session with its fleet
// options, every pane with its process, and every client, in a single tmux
// invocation.
import { FIELD_SEP } from './args';
import { parseRows, type Tmux } from './client';
import { ownString } from '../text';

export const SESSION_FIELDS = {
  name: '#{session_name}',
  created: '#{session_created}',
  attached: '#{session_attached}',
  stamp: '#{@claude_session_id}',
  nonce: '#{@spawn_nonce}',
  task: '#{@fleet-task}',
  /** The agent process the stamp recorded (docs/ownership.md#the-stamps-process). */
  agentProc: '#{@fleet-stamp-agent}',
  owner: '#{@fleet-owner}',
  hop: '#{@fleet-hop}',
  agent: '#{@fleet-agent}',
  attention: '#{@fleet-attention}',
  hopShort: '#{@fleet-hop-short}',
  agentShort: '#{@fleet-agent-short}',
  /** What finished here while no client showed it: `<epoch s> <sentence>`, '' when seen (docs/notify.md#unseen). */
  unseen: '#{@fleet-unseen}',
} as const;

export const CLIENT_FIELDS = {
  name: '#{client_name}',
  session: '#{session_name}',
  control: '#{client_control_mode}',
  /** @fleet-message-time as this client's session sees it: how long its toasts stay. */
  messageTime: '#{@fleet-message-time}',
  /** The client's terminal, and what it is (a notification's escape sequence depends on it: src/notify/notifier.ts). */
  tty: '#{client_tty}',
  termname: '#{client_termname}',
  termtype: '#{client_termtype}',
  /** When it last had input (epoch s): a desktop notification's jump moves the most recent client. */
  activity: '#{client_activity}',
} as const;

/** A pane and its first process: the supervisor proves which agent runs in it by ancestry (docs/ownership.md#the-stamp-without-the-hook). */
export const PANE_FIELDS = {
  session: '#{session_name}',
  id: '#{pane_id}',
  pid: '#{pane_pid}',
  window: '#{window_id}',
  /** The background job a window was opened for (a window option set by the dashboard), or ''. */
  job: '#{@fleet-job}',
  /** The title the pane's program set (Codex CLI and Gemini CLI tell their state there: src/agents/state.ts), cut. */
  title: '#{=100:pane_title}',
  /** The pane a client of its session shows (active in the active window): a notification about it is not sent there. */
  active: '#{&&:#{pane_active},#{window_active}}',
  /** Its terminal: a bell written there is the pane's own (tmux marks its window). */
  tty: '#{pane_tty}',
} as const;

export type SessionSnap = Record<keyof typeof SESSION_FIELDS, string>;
export type PaneSnap = Record<keyof typeof PANE_FIELDS, string>;
export type ClientSnap = Record<keyof typeof CLIENT_FIELDS, string>;

export interface TmuxSnapshot {
  sessions: SessionSnap[];
  clients: ClientSnap[];
  panes: PaneSnap[];
  /** Values of the extra formats asked for (global options, server facts). */
  config: Record<string, string>;
}

const S = 'S';
const C = 'C';
const K = 'K';
const P = 'P';

function format(tag: string, fields: Record<string, string>): string {
  return [tag, ...Object.values(fields)].join(FIELD_SEP);
}

/** The config key that says whether a global option is set at all (`1`), for those `set` asks about. */
export const setKey = (option: string) => `set ${option}`;

/**
 * Sessions, clients and (optionally) extra formats such as global options, in
 * one call; rows are told apart by a leading tag. The extra formats are
 * expanded by display-message against the server's current session, which
 * falls back to the global value of an option no session overrides. `set`:
 * global options whose being set matters (a format cannot tell unset from
 * '', which turns a channel list off): config[setKey(name)] is '1' when set.
 */
export async function readSnapshot(tmux: Tmux, extra: Record<string, string> = {}, set: readonly string[] = []): Promise<TmuxSnapshot> {
  const extraKeys = Object.keys(extra);
  const cmds: string[][] = [
    ['list-sessions', '-F', format(S, SESSION_FIELDS)],
    ['list-clients', '-F', format(C, CLIENT_FIELDS)],
    ['list-panes', '-a', '-F', format(P, PANE_FIELDS)],
  ];
  if (extraKeys.length > 0) cmds.push(['display-message', '-p', format(K, extra)]);
  // `show-options -gq` prints a line starting with the name only when the option is set (its value quoted).
  for (const name of set) cmds.push(['show-options', '-gq', name]);
  const out = await tmux.chain(cmds);
  const sessionLines: string[] = [];
  const clientLines: string[] = [];
  const paneLines: string[] = [];
  const config: Record<string, string> = {};
  for (const line of out.split('\n')) {
    if (line.startsWith(S + FIELD_SEP)) sessionLines.push(line.slice(2));
    else if (line.startsWith(C + FIELD_SEP)) clientLines.push(line.slice(2));
    else if (line.startsWith(P + FIELD_SEP)) paneLines.push(line.slice(2));
    else if (line.startsWith(K + FIELD_SEP)) {
      const values = line.slice(2).split(FIELD_SEP);
      extraKeys.forEach((k, i) => (config[k] = ownString(values[i] ?? '')));
    } else for (const name of set) if (line.startsWith(`${name} `) || line === name) config[setKey(name)] = '1';
  }
  for (const name of set) config[setKey(name)] ??= '0';
  const sessions = parseRows(sessionLines.join('\n'), Object.keys(SESSION_FIELDS) as (keyof typeof SESSION_FIELDS)[]);
  const panes = parseRows(paneLines.join('\n'), Object.keys(PANE_FIELDS) as (keyof typeof PANE_FIELDS)[]);
  // What outlives the snapshot (names and marks kept by views, indexes and the proof across wakes) must not keep the whole read alive.
  for (const s of sessions) for (const k of KEPT_SESSION_FIELDS) s[k] = ownString(s[k]);
  for (const p of panes) for (const k of KEPT_PANE_FIELDS) p[k] = ownString(p[k]);
  return {
    config,
    sessions,
    clients: parseRows(clientLines.join('\n'), Object.keys(CLIENT_FIELDS) as (keyof typeof CLIENT_FIELDS)[]),
    panes,
  };
}

/** The fields a read's sessions and panes hand on to what lives longer than the read (the segment values do not). */
const KEPT_SESSION_FIELDS = ['name', 'created', 'attached', 'stamp', 'nonce', 'task', 'agentProc', 'unseen'] as const;
const KEPT_PANE_FIELDS = ['session', 'id', 'pid', 'window', 'job', 'tty'] as const;
