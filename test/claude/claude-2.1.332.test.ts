// The real agent, Claude Code 2.1.332: every scenario, parking included.
import { realAgentScenarios } from './scenarios';

realAgentScenarios('2.1.332', { parks: true, hooklessClear: true, resume: true });
