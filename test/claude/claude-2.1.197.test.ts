// The real agent, Claude Code 2.1.197: it writes no pidDomain, tmux or
// parkedJobId, so the scenarios without a park; its row keeps its updatedAt
// when /clear rewrites it (the supervisor follows once the stamp has settled);
// a resumed 2.1.197 was seen to exit offline before it stamped, so no resume.
import { realAgentScenarios } from './scenarios';

realAgentScenarios('2.1.197', { parks: false, hooklessClear: true, resume: false });
