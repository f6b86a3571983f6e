// The render's check mode (docs/status.md#check-mode): a difference between the
// incremental render and a full one is told when it holds, never when the next
// wake (the file's watch speaking) ends it.
import { describe, expect, it } from 'vitest';
import { CHECK_STREAK, checkedRender, renderDifferences, withRenderCheck } from '../../src/status/render-check';
import type { Render, Rendered } from '../../src/status/segment-writes';
import type { TmuxSnapshot } from '../../src/tmux/snapshot';
import { waitFor } from '../helpers/env';

const SNAPSHOT = { sessions: [], panes: [], clients: [], config: {} } as unknown as TmuxSnapshot;

function rendered(agent: string): Rendered {
  const none = { '@fleet-owner': '', '@fleet-hop': '', '@fleet-attention': '', '@fleet-hop-short': '', '@fleet-agent-short': '', '@fleet-unseen': '' };
  return { values: new Map([['op-a', { ...none, '@fleet-agent': agent }]]), toasts: [] } as Rendered;
}

/** A render that answers each wake from a list (the last one again when the list runs out). */
function scripted(answers: string[]): Render {
  let i = 0;
  return async () => rendered(answers[Math.min(i++, answers.length - 1)] as string);
}

describe('renderDifferences', () => {
  it('names each segment that differs, with both values; toasts are not compared', () => {
    expect(renderDifferences(rendered('busy'), rendered('busy'))).toEqual([]);
    expect(renderDifferences({ ...rendered('busy'), toasts: [{ session: 'op-a', text: 'x' }] }, rendered('busy'))).toEqual([]);
    expect(renderDifferences(rendered('idle'), rendered('busy'))).toEqual(['session op-a @fleet-agent: "idle" incremental, "busy" full']);
  });
});

describe('checkedRender', () => {
  const full = (agent: string) => () => scripted([agent]);

  it.each([
    ['always the same', ['busy', 'busy', 'busy', 'busy'], 'busy', 0],
    ['one wake behind, then caught up (a watch that spoke late)', ['idle', 'idle', 'busy', 'busy'], 'busy', 0],
    [`the same difference for ${CHECK_STREAK} wakes in a row`, ['idle', 'idle', 'idle', 'idle'], 'busy', 1],
  ] as const)('%s: %i reports', async (_what, incremental, fullAgent, reports) => {
    const told: string[][] = [];
    const render = checkedRender(scripted([...incremental]), full(fullAgent), (lines) => told.push(lines), 60_000);
    for (let i = 0; i < incremental.length; i++) {
      // What the supervisor gets is the incremental render's, whatever the check found.
      expect((await render(SNAPSHOT, { registryOnly: true, registryChanged: new Set() })).values.get('op-a')?.['@fleet-agent']).toBe(incremental[i]);
    }
    expect(told).toHaveLength(reports);
    if (reports > 0) expect(told[0]?.slice(1)).toEqual(['  session op-a @fleet-agent: "idle" incremental, "busy" full']);
  });

  it("three quick wakes within the poll's interval are no miss (a death is seen by the poll); past it, told once", async () => {
    const told: string[][] = [];
    const render = checkedRender(scripted(['idle', 'idle', 'idle', 'idle', 'idle']), full('busy'), (lines) => told.push(lines), 60_000, 300);
    for (let i = 0; i < 3; i++) await render(SNAPSHOT, { registryOnly: true, registryChanged: new Set() });
    expect(told).toEqual([]);
    await new Promise((r) => setTimeout(r, 350));
    await render(SNAPSHOT, { registryOnly: true, registryChanged: new Set() });
    await render(SNAPSHOT, { registryOnly: true, registryChanged: new Set() });
    expect(told).toHaveLength(1);
    expect(told[0]?.slice(1)).toEqual(['  session op-a @fleet-agent: "idle" incremental, "busy" full']);
  });

  it('a difference still there once no wake came for a while is told; one a later wake ended is not', async () => {
    // Ended by a later wake: its timer, started first, would have fired first.
    const ended: string[][] = [];
    const caught = checkedRender(scripted(['idle', 'busy']), full('busy'), (lines) => ended.push(lines), 100);
    await caught(SNAPSHOT, { registryOnly: true, registryChanged: new Set() });
    await caught(SNAPSHOT, { registryOnly: true, registryChanged: new Set() });
    const told: string[][] = [];
    const render = checkedRender(scripted(['idle']), full('busy'), (lines) => told.push(lines), 100);
    await render(SNAPSHOT, { registryOnly: true, registryChanged: new Set() });
    await waitFor(() => told.length === 1, 'the report after the quiet time', 5000, 20);
    expect(told[0]?.[0]).toMatch(/^wake 1 .*still after 100 ms with no wake:$/);
    expect(ended).toEqual([]);
  });

  it('is off unless the environment names a file', () => {
    const render = scripted(['busy']);
    expect(withRenderCheck({}, '/home', render, () => render, 2000)).toBe(render);
    expect(withRenderCheck({ TMUX_FLEET_CHECK_RENDER: '/tmp/x' }, '/home', render, () => render, 2000)).not.toBe(render);
  });
});
