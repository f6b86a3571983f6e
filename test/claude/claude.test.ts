// The real agent: every Claude Code version the tier was asked for
// (TMUX_FLEET_CLAUDE_VERSIONS, set by test/claude/run.mjs: the pinned ones, or
// `npm run test:claude -- --version <v>`), one world each, in order.
import { describe, it } from 'vitest';
import { realAgentScenarios } from './scenarios';
import { traitsOf } from './versions';

const versions = (process.env.TMUX_FLEET_CLAUDE_VERSIONS ?? '').split(',').filter(Boolean);
if (versions.length === 0) {
  describe('the real-agent tier', () => {
    it('is run through npm run test:claude, which names the versions', () => {
      throw new Error('TMUX_FLEET_CLAUDE_VERSIONS is not set: run npm run test:claude [-- --version <v>]');
    });
  });
}
for (const version of versions) realAgentScenarios(version, traitsOf(version));
