// The ids the dashboard's task and session rows show, kept across the supervisor's wakes.
import { describe, expect, it } from 'vitest';
import { ShownIds, shownSessionIds } from '../../src/status/agents';
import type { FleetView } from '../../src/fleet/view';
import { prng } from '../helpers/random';

type Session = FleetView['sessions'][number];
type Task = FleetView['tasks'][number];

/** The parts of a hop ShownIds reads: its base and the session ids of its chain. */
const hop = (base: string, chain: string[]) => ({ base, follow: { chain: chain.map((sessionId) => ({ sessionId })) } }) as unknown as Session['hop'];
const session = (stamp: string, chain: string[] | null): Session => ({ stamp, hop: chain ? hop(stamp, chain) : null }) as unknown as Session;
const task = (owner: string, chain: string[] | null): Task => ({ owner, hop: chain ? hop(owner, chain) : null }) as unknown as Task;
const view = (sessions: Session[], tasks: Task[]): FleetView => ({ sessions, tasks }) as unknown as FleetView;

const ALL = ['a', 'b', 'c', 'job1', 'job2', 'x', ''];
const shownBy = (ids: { has(id: string): boolean }) => ALL.filter((id) => ids.has(id));

describe('ShownIds', () => {
  const s1 = session('a', ['a', 'job1']);
  const t1 = task('a', ['a', 'job1']);
  const cases: { name: string; steps: FleetView[]; want: string[] }[] = [
    { name: 'every id of every chain, and the owners', steps: [view([s1, session('b', null)], [task('c', null)])], want: ['a', 'b', 'c', 'job1'] },
    {
      name: 'an id two rows show stays while one of them still shows it',
      steps: [view([s1], [t1]), view([session('a', ['a'])], [t1])],
      want: ['a', 'job1'],
    },
    {
      name: 'an id no row shows any more is gone',
      steps: [view([s1], [t1]), view([session('a', ['a'])], [task('a', ['a'])])],
      want: ['a'],
    },
    {
      name: 'a session whose work parked on another job',
      steps: [view([s1, session('b', ['b'])], []), view([s1, session('b', ['b', 'job2'])], [])],
      want: ['a', 'b', 'job1', 'job2'],
    },
    {
      name: 'a view of another length is counted again from nothing',
      steps: [view([s1, session('b', ['b'])], []), view([session('x', ['x'])], [])],
      want: ['x'],
    },
    { name: 'an empty stamp is no id', steps: [view([session('', null)], [task('', null)])], want: [] },
  ];
  it.each(cases)('$name', ({ steps, want }) => {
    const ids = new ShownIds();
    ids.apply(steps[0]!, { kind: 'all' });
    for (const v of steps.slice(1)) ids.apply(v, { kind: 'rows' });
    expect(shownBy(ids)).toEqual(want);
    expect(shownBy(shownSessionIds(steps[steps.length - 1]!))).toEqual(want);
  });

  it('after many wakes that replace a few rows, answers what a pass over the whole view would', () => {
    const random = prng(7).int;
    const chainOf = (own: string) => [own, ...(random(3) === 0 ? [`j${random(5)}`] : [])];
    const pick = (i: number) => `s${i}-${random(4)}`;
    let sessions = Array.from({ length: 60 }, (_, i) => session(pick(i), chainOf(pick(i))));
    let tasks = Array.from({ length: 40 }, (_, i) => task(pick(i), random(2) ? chainOf(pick(i)) : null));
    const ids = new ShownIds();
    ids.apply(view(sessions, tasks), { kind: 'all' });
    const every = new Set<string>();
    for (let wake = 0; wake < 200; wake++) {
      sessions = sessions.map((s, i) => (random(10) === 0 ? session(pick(i), chainOf(pick(i))) : s));
      tasks = tasks.map((t, i) => (random(10) === 0 ? task(pick(i), random(2) ? chainOf(pick(i)) : null) : t));
      const v = view(sessions, tasks);
      ids.apply(v, { kind: 'rows' });
      const want = shownSessionIds(v);
      for (const id of want) every.add(id);
      for (const id of every) expect(ids.has(id), `${id} at wake ${wake}`).toBe(want.has(id));
    }
  });
});
