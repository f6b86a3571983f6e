// The real agent, Claude Code 2.1.197: it writes no pidDomain, tmux or
// parkedJobId, so the scenarios without a park.
import { realAgentScenarios } from './scenarios';

realAgentScenarios('2.1.197', { parks: false });
