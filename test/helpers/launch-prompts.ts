// The launch prompts that once became the agent's options (docs/ownership.md#the-launch-prompt):
// a prompt is text, whatever it starts with. The real tier spawns each real agent
// with each of them and checks that the model got the text, whole, and that
// nothing ran.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelServer } from '../fixtures/model-server.mjs';
import type { CliResult } from './env';
import { waitFor } from './env';

export const HOSTILE_LAUNCH_PROMPTS: { name: string; text: string }[] = [
  // Claude Code 2.1.333 read this as --settings and ran the hook (uid=0 in ~/PWNED).
  { name: 'an option with a hook', text: '--settings={"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"id > ~/PWNED"}]}]}}' },
  // Codex CLI's config override: a notify program run at each turn's end.
  { name: "Codex's config override", text: '-c=notify=["sh","-c","id > ~/PWNED"]' },
  // A harmless bullet list: Claude Code exited with `unknown option '- fix…'`.
  { name: 'a bullet list', text: '- fix the login bug\n- add tests' },
];

/**
 * Spawns one Driver per hostile prompt (slugs lp0, lp1, …) with `spawn`, then
 * waits until the model server has been asked with each text whole; none may
 * have run (no ~/PWNED). The sessions are killed after. Returns the seconds
 * each took to reach the model.
 */
export async function checkLaunchPrompts(w: {
  home: string;
  model: ModelServer;
  spawnArgs: (slug: string) => string[];
  fleet(args: string[]): Promise<CliResult>;
  tmux(args: string[]): Promise<string>;
  screen(session: string): Promise<string>;
}): Promise<number[]> {
  const started = Date.now();
  const sessions: string[] = [];
  try {
    for (const [i, p] of HOSTILE_LAUNCH_PROMPTS.entries()) {
      const slug = `lp${i}`;
      const r = await w.fleet([...w.spawnArgs(slug), `--prompt=${p.text}`]);
      if (r.exitCode !== 0) throw new Error(`spawn ${slug} (${p.name}): ${r.stderr}`);
      sessions.push(`op-${slug}`);
    }
    const took: number[] = [];
    for (const [i, p] of HOSTILE_LAUNCH_PROMPTS.entries()) {
      const reached = () => w.model.traffic.some((t) => (t.promptText ?? '').trim() === p.text);
      await waitFor(reached, `the model asked with ${p.name} as text`, 120_000, 250).catch(async (err) => {
        const screen = await w.screen(`op-lp${i}`).catch(() => '(no session)');
        throw new Error(`${(err as Error).message}; its screen:\n${screen}\nprompts seen: ${JSON.stringify(w.model.traffic.map((t) => t.prompt))}`);
      });
      took.push((Date.now() - started) / 1000);
    }
    if (existsSync(join(w.home, 'PWNED'))) throw new Error('a launch prompt ran code: ~/PWNED exists');
    return took;
  } finally {
    for (const s of sessions) await w.tmux(['kill-session', '-t', `=${s}:`]).catch(() => undefined);
  }
}
