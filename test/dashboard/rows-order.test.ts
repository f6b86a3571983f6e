// The dashboard's order (docs/status.md#dashboard, docs/notify.md#unseen):
// those that wait first, longest first; then the sessions that finished while
// nobody looked, oldest first; then the rest as listed.
import { describe, expect, it } from 'vitest';
import { dashboardRows, unseenTime } from '../../src/dashboard/rows';
import type { FleetView, SessionView } from '../../src/fleet/view';

const session = (name: string, over: Partial<SessionView> = {}): SessionView => ({
  session: name,
  stamp: `${name}-0000-4000-8000-000000000000`,
  slug: null,
  decision: null,
  hop: undefined,
  created: 0,
  attached: false,
  agentGone: false,
  agent: 'codex',
  unprovable: null,
  state: { sessionId: name, status: 'idle', waitingFor: null, needs: null, alive: true },
  unseen: '',
  ...over,
});
const view = (sessions: SessionView[]): FleetView => ({ sessions, tasks: [], events: [], tmuxError: null, registry: { dir: '/r', readable: true, rows: 0, malformed: 0 } });

describe('dashboardRows order', () => {
  it('waiting, then unseen (oldest first), then the rest', () => {
    const rows = dashboardRows(
      view([
        session('plain'),
        session('late', { unseen: '1796300200 late finished its turn' }),
        session('waits', { state: { sessionId: 'w', status: 'waiting', waitingFor: 'approval', needs: null, alive: true, since: 5 } }),
        session('early', { unseen: '1796300100 early finished its turn' }),
      ]),
      [],
      1796300260_000,
      '/home/u',
    );
    expect(rows.map((r) => r.session)).toEqual(['waits', 'early', 'late', 'plain']);
    expect(rows[1]?.reason).toMatch(/ · unseen, 2m ago: early finished its turn$/);
    expect(rows[0]?.agent).toBe('codex waiting: approval');
  });

  it.each([
    ['1796300100 x finished its turn', 1796300100],
    ['', null],
    ['soon finished', null],
  ])('unseenTime(%j)', (mark, at) => expect(unseenTime(mark)).toBe(at));
});
