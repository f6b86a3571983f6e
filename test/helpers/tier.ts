// What the real-agent tier's worlds share: each scenario timed, with notes,
// printed as `agents tier timing:` lines at the end (the closing note quotes
// them), a signal that may find its process gone, and the environment a
// user's shell gives an agent.
import { it } from 'vitest';

export interface TierTimings {
  /** An `it` whose time is noted under its name (up to the first colon). */
  timed(name: string, fn: () => Promise<void>): void;
  /** A line of its own, e.g. how long the agent took to stamp. */
  note(text: string): void;
  /** Starts the clock of the whole (in beforeAll). */
  start(): void;
  /** Prints every note and the whole's time (in afterAll). */
  print(): void;
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function tierTimings(label: string): TierTimings {
  const lines: string[] = [];
  let t0 = Date.now();
  const note = (text: string) => lines.push(`${label} ${text}`);
  return {
    timed: (name, fn) =>
      it(name, async () => {
        const start = Date.now();
        try {
          await fn();
        } finally {
          note(`${name.split(':')[0]}: ${seconds(Date.now() - start)}`);
        }
      }),
    note,
    start: () => {
      t0 = Date.now();
    },
    print: () => {
      note(`whole: ${seconds(Date.now() - t0)}`);
      console.log(lines.map((t) => `agents tier timing: ${t}`).join('\n'));
    },
  };
}

/** Sends a signal; a process already gone is not an error. */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/**
 * The environment a user's shell would give an agent: none of this run's tmux,
 * agent, fleet or vitest variables, and no CI markers. Gemini CLI runs headless
 * under CI=true or GITHUB_ACTIONS=true (its isHeadlessMode): in a pane it then
 * prints "No input provided via stdin" and exits 42, as CI's own run showed.
 */
export function userShellEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(TMUX|CLAUDE|ANTHROPIC|CODEX|GEMINI|GOOGLE|OPENAI|TMUX_FLEET_|VITEST|NODE_OPTIONS)/.test(k)) continue;
    if (k === 'CI' || k === 'GITHUB_ACTIONS') continue;
    env[k] = v;
  }
  return env;
}
