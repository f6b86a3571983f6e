// The segments' short forms, for a narrow client (docs/status.md#narrow-clients): the badge with its icon alone.
import { describe, expect, it } from 'vitest';
import type { SessionHop } from '../../src/registry/hop';
import { agentSegment, hopSegment, hopShortSegment, iconOnly, stylesFrom } from '../../src/status/segments';

const styles = stylesFrom({});
const hop = (over: Partial<SessionHop['agent']> = {}, following = true): SessionHop =>
  ({
    session: 's',
    base: '10e378ef-0000-4000-8000-000000000000',
    attached: following ? 'e9e4ae8e-0000-4000-8000-000000000000' : '10e378ef-0000-4000-8000-000000000000',
    following,
    jobId: following ? 'e9e4ae8e' : null,
    agent: { sessionId: 'x', status: 'waiting', waitingFor: 'approve Bash', needs: null, alive: true, ...over },
    follow: { base: '', attached: '', hops: following ? 1 : 0, stop: 'no-park', chain: [], rows: [] },
  }) as unknown as SessionHop;

describe('short forms', () => {
  it('the hop without its ids, the agent without its text, in the same badge', () => {
    expect(hopSegment(hop(), styles)).toBe('#[fg=black,bg=cyan] ↪ 10e3 → e9e4 #[default]');
    expect(hopShortSegment(hop(), styles)).toBe('#[fg=black,bg=cyan] ↪ #[default]');
    expect(agentSegment(hop().agent, styles)).toBe('#[fg=black,bg=yellow,bold] ! waiting: approve Bash #[default]');
    expect(agentSegment(hop().agent, styles, true)).toBe('#[fg=black,bg=yellow,bold] ! #[default]');
    expect(agentSegment(hop({ status: 'busy', waitingFor: null }).agent, styles, true)).toBe('#[fg=white,bg=blue] ⚙ #[default]');
  });

  it('nothing to show: nothing short either; an icon set to a space draws no short form', () => {
    expect(hopShortSegment(hop({}, false), styles)).toBe('');
    expect(iconOnly({ icon: '', style: 'fg=red' }, 'text')).toBe('');
    expect(iconOnly({ icon: '#', style: 'fg=red]#' }, 'text')).toBe('#[fg=red] ## #[default]');
    expect(iconOnly({ icon: '!', style: '' }, 'text')).toBe('!');
  });
});
