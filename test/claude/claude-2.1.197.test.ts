// The real agent, Claude Code 2.1.197: it writes no pidDomain, tmux or
// parkedJobId, so the scenarios without a park; and its row keeps its updatedAt
// when /clear rewrites it, so /clear without the hook is not followed; and a
// resumed 2.1.197 was seen to exit offline before it stamped, so no resume.
import { realAgentScenarios } from './scenarios';

realAgentScenarios('2.1.197', { parks: false, clearMovesUpdatedAt: false, resume: false });
