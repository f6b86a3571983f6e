// tmux-fleet hooks install|uninstall|status against a temp CLAUDE_CONFIG_DIR.
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';

let fx: FleetEnv;
let settings: string;

beforeEach(async () => {
  fx = await makeFleetEnv();
  settings = join(fx.claudeDir, 'settings.json');
});
afterEach(async () => {
  await fx.cleanup();
});

const hooks = (action: string, extra: string[] = []) => runFleet(['hooks', action, ...extra], { env: fx.env });
const readJson = async () => JSON.parse(await readFile(settings, 'utf8')) as Record<string, any>;
const backups = async () => (await readdir(fx.claudeDir)).filter((n) => n.startsWith('settings.json.bak-'));
// The node that runs the helper, by its absolute path: the hook runs without node on Claude Code's PATH.
const ourCommand = `${process.execPath} ${FLEET_BIN} stamp`;

/** A settings.json as a user has it: other keys, other hooks, another SessionStart hook. */
const existing = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test:*)'], deny: [] },
  env: { FOO: 'bar' },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre', timeout: 5 }] }],
    SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'cat ~/context.md' }] }],
  },
  someFutureKey: { nested: [1, 2, { x: null }] },
};

describe('hooks install', () => {
  it('keeps every other key and hook and adds ours once, even when run twice', async () => {
    await writeFile(settings, JSON.stringify(existing, null, 4), { mode: 0o600 });

    const first = await hooks('install');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^claude: added the SessionStart hook .* \(backup: .*settings\.json\.bak-tmux-fleet\)$/);

    const after = await readJson();
    const { hooks: h1, ...rest } = after;
    const { hooks: h0, ...rest0 } = existing;
    expect(rest).toEqual(rest0);
    expect(h1.PreToolUse).toEqual(h0.PreToolUse);
    expect(h1.SessionStart).toEqual([
      ...h0.SessionStart,
      { hooks: [{ type: 'command', command: ourCommand }] },
    ]);

    const text = await readFile(settings, 'utf8');
    const second = await hooks('install');
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toMatch(/already installed .*nothing changed/);
    expect(await readFile(settings, 'utf8')).toBe(text);
    expect(await backups()).toHaveLength(1);
  });

  it("an install of the stamp alone (an older version's) gains the state hooks; one of ours on an event no longer used goes", async () => {
    const event = ourCommand.replace(/ stamp$/, ' event --agent claude');
    const older = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: ourCommand }] }], Stop: [{ hooks: [{ type: 'command', command: event }] }, { hooks: [{ type: 'command', command: 'mine' }] }] } };
    await writeFile(settings, JSON.stringify(older, null, 2));
    const status = await hooks('status');
    expect(status.stdout).toMatch(/^claude: installed in .*; without the state hooks of PermissionRequest, SessionEnd \(busy, idle and what a wait is for\): tmux-fleet hooks install adds them$/);
    const r = await hooks('install');
    expect(r.stdout).toMatch(/^claude: added the PermissionRequest hook `.*event --agent claude`; the state hooks of SessionEnd; removed our Stop hook \(no longer used\) in /);
    const h = (await readJson()).hooks;
    expect(h.Stop).toEqual([{ hooks: [{ type: 'command', command: 'mine' }] }]);
    expect(h.PermissionRequest).toEqual([{ hooks: [{ type: 'command', command: event }] }]);
    expect(h.SessionEnd).toEqual([{ hooks: [{ type: 'command', command: event }] }]);
    expect((await hooks('status')).stdout).toMatch(/^claude: installed in [^;]*$/);
    // uninstall: every hook of ours, on every event, and nothing else.
    const un = await hooks('uninstall');
    expect(un.stdout).toMatch(/^claude: removed the SessionStart hook .* and the state hooks of PermissionRequest, SessionEnd from /);
    expect(await readJson()).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] } });
  });

  it('backs the file up first, byte for byte', async () => {
    const original = `${JSON.stringify(existing, null, 4)}\n`;
    await writeFile(settings, original, { mode: 0o600 });
    const r = await hooks('install', ['--json']);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout).agents[0];
    expect(out).toMatchObject({ action: 'install', change: 'added', installed: true, command: ourCommand });
    expect(await readFile(out.backup, 'utf8')).toBe(original);
    expect((await stat(out.backup)).mode & 0o777).toBe(0o600);
  });

  it('creates the directory and the file (0600) when missing', async () => {
    const env = { ...fx.env, CLAUDE_CONFIG_DIR: join(fx.root, 'fresh', 'claude') };
    const r = await runFleet(['hooks', 'install'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/in new file/);
    const file = join(fx.root, 'fresh', 'claude', 'settings.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The stamp, and the state hook of the events that tell what a wait is for (docs/ownership.md#what-each-agent-tells).
    const state = [{ hooks: [{ type: 'command', command: ourCommand.replace(/ stamp$/, ' event --agent claude') }] }];
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: ourCommand }] }], PermissionRequest: state, SessionEnd: state },
    });
  });

  it('points a stamp hook of another helper path at this one, without adding a second', async () => {
    const old = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: "'/old place/tmux-fleet.mjs' stamp", timeout: 10 }] }] } };
    await writeFile(settings, JSON.stringify(old));
    const r = await hooks('install');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^claude: updated the SessionStart hook/);
    expect((await readJson()).hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: ourCommand, timeout: 10 }] }]);
  });

  it('writes through a symlinked settings.json and keeps the link', async () => {
    const real = join(fx.root, 'dotfiles', 'settings.json');
    await mkdir(join(fx.root, 'dotfiles'));
    await writeFile(real, JSON.stringify({ model: 'x' }));
    await symlink(real, settings);
    expect((await hooks('install')).exitCode).toBe(0);
    expect(JSON.parse(await readFile(real, 'utf8')).model).toBe('x');
    expect(JSON.parse(await readFile(real, 'utf8')).hooks.SessionStart).toHaveLength(1);
    const { lstat } = await import('node:fs/promises');
    expect((await lstat(settings)).isSymbolicLink()).toBe(true);
  });
});

describe('hooks refuses a broken settings file', () => {
  for (const [what, text] of [
    ['invalid JSON', '{\n  "model": "opus",\n  "hooks": {,\n}\n'],
    ['a hooks key that is not an object', '{"hooks": []}'],
    ['a SessionStart that is not a list', '{"hooks": {"SessionStart": {"hooks": []}}}'],
  ] as const) {
    it(`${what}: one line naming the file, file byte-identical, no backup`, async () => {
      await writeFile(settings, text);
      for (const action of ['install', 'uninstall', 'status']) {
        const r = await hooks(action);
        expect(r.exitCode).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(settings);
        expect(await readFile(settings, 'utf8')).toBe(text);
      }
      expect(await backups()).toEqual([]);
    });
  }

  it('names the position of a JSON error', async () => {
    await writeFile(settings, '{\n  "model": "opus",\n  "hooks": {,\n}\n');
    const r = await hooks('install');
    expect(r.stderr).toMatch(/not valid JSON .*line 3 column \d+/);
  });
});

describe('hooks uninstall and status', () => {
  it('uninstall removes only ours; install then uninstall gives the settings back', async () => {
    await writeFile(settings, JSON.stringify(existing));
    expect((await hooks('install')).exitCode).toBe(0);
    const r = await hooks('uninstall');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^claude: removed the SessionStart hook .* \(backup: /);
    expect(await readJson()).toEqual(existing);

    const again = await hooks('uninstall');
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/not installed .*nothing changed/);
  });

  it('uninstall leaves other hooks of the same group in place', async () => {
    const shared = {
      hooks: {
        SessionStart: [
          { hooks: [{ type: 'command', command: 'echo mine' }, { type: 'command', command: `${FLEET_BIN} stamp` }] },
        ],
      },
    };
    await writeFile(settings, JSON.stringify(shared));
    expect((await hooks('uninstall')).exitCode).toBe(0);
    expect(await readJson()).toEqual({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } });
  });

  it('uninstall on a file without hooks removes nothing and writes nothing', async () => {
    await writeFile(settings, '{"model":"opus"}');
    const r = await hooks('uninstall');
    expect(r.exitCode).toBe(0);
    expect(await readFile(settings, 'utf8')).toBe('{"model":"opus"}');
    expect(await backups()).toEqual([]);
  });

  it('status: exit 1 when not installed (or no file), 0 when installed', async () => {
    let r = await hooks('status');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^claude: not installed in /);
    await writeFile(settings, JSON.stringify(existing));
    expect((await hooks('status')).exitCode).toBe(1);
    await hooks('install');
    r = await hooks('status', ['--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).agents[0]).toMatchObject({ agent: 'claude', action: 'status', installed: true, found: [ourCommand] });
  });
});

describe('hooks install: the node', () => {
  it("names the node that runs it by its absolute path, and updates a hook of the older form (the helper alone)", async () => {
    await writeFile(settings, JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `${FLEET_BIN} stamp` }] }] } }));
    const r = await hooks('install');
    expect(r.exitCode).toBe(0);
    expect((await readJson()).hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: ourCommand }] }]);
    expect(ourCommand.startsWith('/')).toBe(true);
  });
});
