// What the real-agent tier's worlds share: each scenario timed, with notes,
// printed as `claude tier timing:` lines at the end (the closing note quotes
// them), and a signal that may find its process gone.
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
      console.log(lines.map((t) => `claude tier timing: ${t}`).join('\n'));
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
