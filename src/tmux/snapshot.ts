// One read of everything the status side needs: every session with its fleet
// options, and every client, in a single tmux invocation.
import { FIELD_SEP } from './args';
import { parseRows, type Tmux } from './client';

export const SESSION_FIELDS = {
  name: '#{session_name}',
  created: '#{session_created}',
  attached: '#{session_attached}',
  stamp: '#{@claude_session_id}',
  nonce: '#{@spawn_nonce}',
  task: '#{@fleet-task}',
  owner: '#{@fleet-owner}',
  hop: '#{@fleet-hop}',
  agent: '#{@fleet-agent}',
} as const;

export const CLIENT_FIELDS = {
  name: '#{client_name}',
  session: '#{session_name}',
  control: '#{client_control_mode}',
} as const;

export type SessionSnap = Record<keyof typeof SESSION_FIELDS, string>;
export type ClientSnap = Record<keyof typeof CLIENT_FIELDS, string>;

export interface TmuxSnapshot {
  sessions: SessionSnap[];
  clients: ClientSnap[];
}

const S = 'S';
const C = 'C';

function format(tag: string, fields: Record<string, string>): string {
  return [tag, ...Object.values(fields)].join(FIELD_SEP);
}

/** Sessions and clients in one call; rows are told apart by a leading tag. */
export async function readSnapshot(tmux: Tmux): Promise<TmuxSnapshot> {
  const out = await tmux.chain([
    ['list-sessions', '-F', format(S, SESSION_FIELDS)],
    ['list-clients', '-F', format(C, CLIENT_FIELDS)],
  ]);
  const sessionLines: string[] = [];
  const clientLines: string[] = [];
  for (const line of out.split('\n')) {
    if (line.startsWith(S + FIELD_SEP)) sessionLines.push(line.slice(2));
    else if (line.startsWith(C + FIELD_SEP)) clientLines.push(line.slice(2));
  }
  return {
    sessions: parseRows(sessionLines.join('\n'), Object.keys(SESSION_FIELDS) as (keyof typeof SESSION_FIELDS)[]),
    clients: parseRows(clientLines.join('\n'), Object.keys(CLIENT_FIELDS) as (keyof typeof CLIENT_FIELDS)[]),
  };
}
