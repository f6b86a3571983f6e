// Types of install.mjs (plain JavaScript, run by node before vitest starts).
export interface PinnedAgent {
  agent: 'codex' | 'gemini';
  pkg: string;
  version: string;
  bin: string;
  name: string;
}
export const OTHER_AGENTS: PinnedAgent[];
export function agentsCacheDir(env?: NodeJS.ProcessEnv): string;
export function agentBinary(cacheDir: string, a: PinnedAgent): string;
export function installAgent(a: PinnedAgent, cacheDir?: string): Promise<string>;
