// The real agent: every Claude Code version the tier was asked for
// (TMUX_FLEET_CLAUDE_VERSIONS, set by test/agents-real/run.mjs: the pinned ones, or
// `npm run test:agents -- --version <v>`), one world each, in order.
import { describe, it } from 'vitest';
import { realAgentScenarios } from './scenarios';
import { traitsOf } from './versions';

const versions = (process.env.TMUX_FLEET_CLAUDE_VERSIONS ?? '').split(',').filter(Boolean);
if (versions.length === 0) {
  describe('the real-agent tier', () => {
    it('is run through npm run test:agents, which names the versions', () => {
      throw new Error('TMUX_FLEET_CLAUDE_VERSIONS is not set: run npm run test:agents [-- --version <v>]');
    });
  });
}
for (const version of versions) realAgentScenarios(version, traitsOf(version));
