// The real Gemini CLI 0.61.0, offline in a private tmux server with a
// throw-away HOME (docs/ownership.md#gemini-cli): the shared scenarios
// (./scenarios.ts) with what is Gemini's own: the hook added to a
// settings.json with comments, its stamp at start with the --session-id spawn
// gave, the proof without a hook by that id and its chat file, the launch
// prompt as --prompt-interactive, and `--resume <id>`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { seconds } from '../helpers/tier';
import { agentTier } from './scenarios';
import { cmdline, until } from './world';

/** Every chat file of Gemini's (<home>/.gemini/tmp/<project>/chats) whose first line names this session id, joined. */
function geminiChat(home: string, sid: string): string {
  const tmp = join(home, '.gemini', 'tmp');
  if (!existsSync(tmp)) return '';
  const out: string[] = [];
  for (const project of readdirSync(tmp)) {
    const chats = join(tmp, project, 'chats');
    if (!existsSync(chats)) continue;
    for (const name of readdirSync(chats)) {
      if (!name.endsWith(`-${sid.slice(0, 8)}.jsonl`)) continue;
      try {
        const text = readFileSync(join(chats, name), 'utf8');
        if (text.includes(`"sessionId":"${sid}"`)) out.push(text);
      } catch {
        /* caught mid-write */
      }
    }
  }
  return out.join('\n');
}

/** Gemini waits for a prompt. */
const prompt = (screen: string) => screen.includes('Type your message');

agentTier({
  agent: 'gemini',
  name: 'Gemini',
  version: '0.61.0',
  slug: 'tg',
  prompt,
  idle: prompt,
  approvalQuestion: 'Allow execution',
  turns: { approve: ['Enter'], waitSentence: 'approve Shell: ls -la /' },

  stamp: {
    title: 'stamp: hooks install adds the hook to a settings.json with comments; Gemini reads it, and the hook stamps at start, before any prompt, with the id spawn gave and the agent process',
    async run({ world: get, note }) {
      const world = get();
      // Gemini takes comments in its settings.json (strip-json-comments, then JSON.parse): the hook is added among them.
      const settings = join(world.home, '.gemini', 'settings.json');
      await writeFile(
        settings,
        [
          '// The real tier: an API key (in the environment), no folder trust prompt.',
          '{',
          '  /* auth */',
          '  "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } } // offline',
          '}',
          '',
        ].join('\n'),
      );
      const r = await world.fleet(['hooks', 'install']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^gemini: added the SessionStart hook .*settings\.json/m);
      const edited = await readFile(settings, 'utf8');
      for (const comment of ['// The real tier', '/* auth */', '// offline']) expect(edited).toContain(comment);
      const started = Date.now();
      const session = await world.spawn('tg');
      const sid = await until(() => world.stamp(session), 'the stamp of SessionStart', 120_000, 200);
      note(`spawn to stamp: ${seconds(Date.now() - started)}`);
      // A Gemini that exits leaves its last screen: a failure says why.
      await world.tmux(['set-option', '-t', `=${session}:`, 'remain-on-exit', 'on']);
      const pid = await until(() => world.agentPid(session), "Gemini's relaunched child", 30_000, 200).catch(async (err: Error) => {
        throw new Error(`${err.message}; its pane shows:\n${await world.screen(session).catch(() => '(no pane)')}`);
      });
      // The id spawn passed is the one Gemini runs under.
      const argv = cmdline(pid);
      expect(argv[argv.indexOf('--session-id') + 1]).toBe(sid);
      return { session, sid, pid };
    },
  },

  clear: {
    title: '/clear: a new session id of the same process; the hook hands the task over (reason clear)',
    ready: async (world, driver) => {
      await until(async () => prompt(await world.screen(driver.session)), 'the prompt', 60_000, 250);
    },
  },

  hookless: {
    title: 'without a hook: the supervisor proves Gemini by its --session-id and the chat file of that id; the launch prompt goes as --prompt-interactive=<text>',
    spawnArgs: ['--prompt', 'hello from the tier'],
    proven(_session, sid, pid) {
      const argv = cmdline(pid);
      expect(argv[argv.indexOf('--session-id') + 1]).toBe(sid);
      expect(argv).toContain('--prompt-interactive=hello from the tier');
    },
    async then({ world: get }, session) {
      const world = get();
      // No hook: its state from its pane's title alone; the launch prompt's turn ends, and the title says Ready.
      await world.optionUntil(session, '@fleet-agent', (v) => v.includes('· idle'), 60_000);
      expect(await world.tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_title}'])).toMatch(/Ready/);
    },
  },

  restore: {
    how: '--resume <id>',
    resumeArgs: (sid) => ['--resume', sid],
    async cleared(world, _pid, first) {
      // SessionStart of the clear: the task follows at once.
      await until(async () => {
        const t = await world.readTask('tr');
        return t.driverSid !== first && t.handovers?.at(-1)?.reason === 'clear' ? 'yes' : '';
      }, 'task tr to follow /clear', 60_000, 200);
    },
    conversation: geminiChat,
  },
});
