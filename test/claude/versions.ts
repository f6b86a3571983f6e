// What each Claude Code version of the tier can do (docs/hop.md#what-claude-code-writes).
// The pinned versions are in test/claude/install.mjs; a version not named here
// (`npm run test:agents -- --version <v>`, a new release) is held to the newest's traits.
import type { VersionTraits } from './scenarios';

const NEWEST: VersionTraits = { parks: true, hooklessClear: true, resume: true };

export const TRAITS: Record<string, VersionTraits> = {
  '2.1.333': NEWEST,
  '2.1.332': { parks: true, hooklessClear: true, resume: true },
  // It parks with Left, but its tab's row names no job (no parkedJobId, pidDomain or tmux);
  // its row keeps its updatedAt when /clear rewrites it (the supervisor follows once the
  // stamp has settled); a resumed 2.1.197 was seen to exit offline before it stamped.
  '2.1.197': { parks: false, hooklessClear: true, resume: false },
};

export function traitsOf(version: string): VersionTraits {
  return TRAITS[version] ?? NEWEST;
}
