// A tmux snapshot's session and pane rows (src/tmux/snapshot.ts) for tests:
// every field empty but those given, so a field added to the snapshot is
// added here once.
import type { PaneSnap, SessionSnap } from '../../src/tmux/snapshot';

export const sessionSnap = (name: string, over: Partial<SessionSnap> = {}): SessionSnap => ({
  name,
  created: '1',
  attached: '0',
  stamp: '',
  nonce: '',
  task: '',
  agentProc: '',
  owner: '',
  hop: '',
  agent: '',
  attention: '',
  hopShort: '',
  agentShort: '',
  unseen: '',
  ...over,
});

export const paneSnap = (session: string, id: string, pid: string, over: Partial<PaneSnap> = {}): PaneSnap => ({ session, id, pid, window: '@1', job: '', title: '', active: '1', tty: '', ...over });
