// Real turns of a real Codex CLI or Gemini CLI Driver, through the world's
// scripted model server (docs/ownership.md#what-each-agent-tells): busy while
// the model answers, then idle; a tool approval that waits and is approved;
// one that is denied (Esc: Codex says so through its Interrupt hook, Gemini
// through nothing but its title). At each step the state is read where a user
// reads it: the segment, the attention count, `tasks --json`, `attention`.
// One scenario list for both agents, as the Claude Code tier's are shared.
import { expect } from 'vitest';
import type { AgentWorld } from './world';
import { until } from './world';

export interface TurnDriver {
  slug: string;
  session: string;
}

interface Seen {
  /** When the pane's title first showed the state (epoch ms), or null. */
  title: number | null;
  /** When the agent's hook wrote its signal, or null. */
  hook: number | null;
  /** When the segment showed it. */
  segment: number;
}

/** The pane title and the segment, polled together until the segment matches: when each first showed the state. */
async function watch(world: AgentWorld, driver: TurnDriver, sid: () => Promise<string>, title: RegExp, segment: (v: string) => boolean, what: string): Promise<Seen> {
  let titleAt: number | null = null;
  const seg = await until(
    async () => {
      const t = await world.tmux(['display-message', '-p', '-t', `=${driver.session}:`, '#{pane_title}']).catch(() => '');
      if (titleAt === null && title.test(t)) titleAt = Date.now();
      const v = await world.option(driver.session, '@fleet-agent');
      return segment(v) ? Date.now() : null;
    },
    what,
    90_000,
    50,
  );
  const signal = await world.signal(await sid());
  return { title: titleAt, hook: signal?.at ?? null, segment: seg };
}

const lag = (s: Seen) =>
  [s.hook !== null ? `hook ${Math.max(0, s.segment - s.hook)} ms` : '', s.title !== null ? `title ${Math.max(0, s.segment - s.title)} ms` : ''].filter(Boolean).join(', ');

/** Each agent's titles (src/agents/state.ts): busy, idle. */
const TITLES = {
  codex: { busy: /^[\u2800-\u28ff_] /, idle: /^(?![\u2800-\u28ff_] )(?!\[ [!.] \]).*\| / },
  gemini: { busy: /Working/, idle: /Ready/ },
};

export interface TurnOptions {
  agent: 'codex' | 'gemini';
  /** The keys that approve a pending tool call once. */
  approve: string[];
  /** What the waiting segment says: the hook's sentence. */
  waitSentence: string;
}

/**
 * The scenarios, in order, on a Driver that runs and is stamped (the world's
 * supervisor running, hooks installed). `timed` and `note` are the tier's.
 */
export function turnScenarios(
  timed: (name: string, fn: () => Promise<void>) => void,
  note: (text: string) => void,
  getWorld: () => AgentWorld,
  getDriver: () => TurnDriver,
  opts: TurnOptions,
): void {
  const state = async () => {
    const world = getWorld();
    const tasks = JSON.parse((await world.fleet(['tasks', '--json'])).stdout) as { tasks: { slug: string; agent: { status: string; needs: string | null; waits: boolean } | null }[] };
    return tasks.tasks.find((t) => t.slug === getDriver().slug)?.agent ?? null;
  };
  const attention = async () => JSON.parse((await getWorld().fleet(['attention', '--json'])).stdout) as { waiting: { who: string; what: string }[] };
  const sid = async () => getWorld().stamp(getDriver().session);
  const ready = async () => {
    const world = getWorld();
    await until(async () => (/busy/.test(await world.option(getDriver().session, '@fleet-agent')) ? null : true), 'the Driver not busy', 90_000, 200);
  };

  timed('turn: busy while the model answers, then idle (segment, tasks --json)', async () => {
    const world = getWorld();
    const d = getDriver();
    await ready();
    await world.typeLine(d.session, 'write a haiku about panes');
    const busy = await watch(world, d, sid, TITLES[opts.agent].busy, (v) => v.includes('⚙ busy'), 'the segment busy');
    note(`turn: busy shown, ${lag(busy)} after the agent said so`);
    // tasks --json reads the same view (the model answers after 2.5 s: still busy).
    await until(async () => ((await state())?.status === 'busy' ? true : null), 'tasks --json busy', 10_000, 100);
    const idle = await watch(world, d, sid, TITLES[opts.agent].idle, (v) => v.includes('· idle'), 'the segment idle');
    note(`turn: idle shown, ${lag(idle)} after the agent said so`);
    expect(await state()).toMatchObject({ status: 'idle', waits: false });
  });

  timed("approval: a tool call waits with the hook's sentence, counted and listed; approved, it runs and the turn ends", async () => {
    const world = getWorld();
    const d = getDriver();
    await ready();
    await world.typeLine(d.session, 'please list the root');
    const waiting = await watch(world, d, sid, /Action Required/, (v) => v.includes(`! ${opts.waitSentence}`), "the segment waiting with the hook's sentence");
    note(`approval: the wait shown, ${lag(waiting)} after the agent said so`);
    expect(await state()).toMatchObject({ status: 'waiting', needs: opts.waitSentence, waits: true });
    expect((await attention()).waiting).toEqual([expect.objectContaining({ who: d.slug, what: opts.waitSentence })]);
    expect(await world.option('keeper', '@fleet-attention')).toContain('! 1 waiting');
    for (const key of opts.approve) await world.tmux(['send-keys', '-t', `=${d.session}:`, key]);
    const done = await watch(world, d, sid, TITLES[opts.agent].idle, (v) => v.includes('· idle'), 'the turn ended after the approval');
    note(`approval: idle after the answer, ${lag(done)}`);
    expect((await attention()).waiting).toEqual([]);
    expect(world.model.traffic.some((t) => t.dialect === (opts.agent === 'codex' ? 'responses' : 'gemini') && t.toolResult)).toBe(true);
  });

  timed('denial: a tool call waits, Esc denies it, and the wait ends everywhere (no hook needed)', async () => {
    const world = getWorld();
    const d = getDriver();
    await ready();
    await world.typeLine(d.session, 'list the root again');
    await watch(world, d, sid, /Action Required/, (v) => v.includes(`! ${opts.waitSentence}`), 'the segment waiting');
    await world.tmux(['send-keys', '-t', `=${d.session}:`, 'Escape']);
    const idle = await watch(world, d, sid, TITLES[opts.agent].idle, (v) => !v.includes('!'), 'the wait ended by the denial');
    note(`denial: the wait cleared, ${lag(idle)}`);
    // attention and tasks --json read the same sources: the wait is over there too.
    await until(async () => ((await attention()).waiting.length === 0 ? true : null), 'attention to list no wait', 10_000, 200);
    expect((await state())?.waits).toBe(false);
  });
}
