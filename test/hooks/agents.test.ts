// tmux-fleet hooks for Codex CLI and Gemini CLI: their own files, every other
// key and hook kept, Codex's trust recorded in its config.toml and removed again.
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexHookHash, codexTrustKey } from '../../src/hooks/codex-trust';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';

let fx: FleetEnv;
let codex: string;
let gemini: string;

beforeEach(async () => {
  fx = await makeFleetEnv();
  codex = fx.env.CODEX_HOME as string;
  gemini = join(fx.env.GEMINI_CLI_HOME as string, '.gemini');
});
afterEach(async () => {
  await fx.cleanup();
});

const hooks = (action: string, extra: string[] = []) => runFleet(['hooks', action, ...extra], { env: fx.env });
// As hooks install writes it: the node that runs the helper, then the helper (docs/tmux.md#node).
const ours = `${process.execPath} ${FLEET_BIN} stamp`;
const read = (file: string) => readFile(file, 'utf8');
const backups = async (dir: string, name: string) => (await readdir(dir)).filter((n) => n.startsWith(`${name}.bak-`));

const USER_HOOK = { type: 'command', command: '/usr/local/bin/notify-start', timeout: 30 };
/** A config.toml as a user has it: comments, other tables, trust of their own hook. */
const userConfig = (hooksFile: string) => `# my Codex
model = "gpt-5" # the default

[projects."/work"]
trust_level = "trusted"

[features]
daemon_auto_start = false

[hooks.state."${hooksFile}:session_start:0:0"]
trusted_hash = "${codexHookHash(undefined, USER_HOOK)}"
`;

describe('the trust hash Codex expects', () => {
  it('is the one Codex 0.171.0 reported (hooks/list currentHash) for a hook it then ran without review', () => {
    expect(codexHookHash(undefined, { type: 'command', command: '/tmp/h24x/hook.sh', timeout: 10 })).toBe(
      'sha256:d24a698f4406e079eed8243eb604da1abc424445326cf4e318960067d46d9021',
    );
  });

  it.each([
    ['the default timeout is 600', { type: 'command', command: 'x' }, { type: 'command', command: 'x', timeout: 600 }],
    ['async false is the default', { type: 'command', command: 'x', timeout: 5 }, { type: 'command', command: 'x', timeout: 5, async: false }],
    ['a name Codex does not read does not count', { type: 'command', command: 'x', timeout: 5 }, { type: 'command', command: 'x', timeout: 5, name: 'n' }],
  ])('%s', (_name, a, b) => {
    expect(codexHookHash(undefined, a)).toBe(codexHookHash(undefined, b));
  });

  it('changes with the command, the timeout and the matcher; an entry Codex would not run has none', () => {
    const base = codexHookHash(undefined, { type: 'command', command: 'x', timeout: 5 });
    expect(codexHookHash(undefined, { type: 'command', command: 'y', timeout: 5 })).not.toBe(base);
    expect(codexHookHash(undefined, { type: 'command', command: 'x', timeout: 6 })).not.toBe(base);
    expect(codexHookHash('startup', { type: 'command', command: 'x', timeout: 5 })).not.toBe(base);
    expect(codexHookHash(undefined, { type: 'prompt', command: 'x' })).toBeNull();
    expect(codexHookHash(undefined, { type: 'command', command: ' ' })).toBeNull();
  });
});

describe('hooks for Codex CLI', () => {
  it('install: adds the hook after the user\'s, records its trust, keeps every byte of config.toml; idempotent; uninstall gives the files back', async () => {
    const hooksFile = join(codex, 'hooks.json');
    const configFile = join(codex, 'config.toml');
    await mkdir(codex, { recursive: true });
    const hooksBefore = `${JSON.stringify({ hooks: { SessionStart: [{ hooks: [USER_HOOK] }], Stop: [{ hooks: [{ type: 'command', command: 'bye' }] }] } }, null, 2)}\n`;
    await writeFile(hooksFile, hooksBefore);
    const configBefore = userConfig(hooksFile);
    await writeFile(configFile, configBefore);

    const first = await hooks('install', ['--agent', 'codex']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^codex: added the SessionStart hook .*; recorded its trust in .*config\.toml \(backup: .*config\.toml\.bak-tmux-fleet\)$/);
    const h = JSON.parse(await read(hooksFile));
    const event = ours.replace(/ stamp$/, ' event --agent codex');
    const state = (ev: string) => ({ hooks: [{ type: 'command', command: event, timeout: ev === 'SessionEnd' || ev === 'Interrupt' ? 3 : 10 }] });
    // The user's Stop hook first, ours after it.
    expect(h.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'bye' }] }, state('Stop')]);
    expect(h.hooks.SessionStart).toEqual([{ hooks: [USER_HOOK] }, { hooks: [{ type: 'command', command: ours, timeout: 10 }] }]);
    const events = ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'Interrupt', 'SessionEnd'];
    for (const ev of events) if (ev !== 'Stop') expect(h.hooks[ev], ev).toEqual([state(ev)]);
    const config = await read(configFile);
    expect(config.startsWith(configBefore)).toBe(true);
    // Every hook of ours trusted, each under its event's key with its own hash (timeouts clamped as Codex clamps them).
    const trust = (key: string, hash: string | null) => `\n[hooks.state."${key}"]\ntrusted_hash = "${hash}"\n`;
    expect(config).toContain(trust(codexTrustKey(hooksFile, 1, 0), codexHookHash(undefined, { type: 'command', command: ours, timeout: 10 })));
    for (const ev of events) {
      expect(config, ev).toContain(trust(codexTrustKey(hooksFile, ev === 'Stop' ? 1 : 0, 0, ev), codexHookHash(undefined, state(ev).hooks[0]!, ev)));
    }

    const status = await hooks('status', ['--agent', 'codex']);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/^codex: installed in .*hooks\.json: .*, trusted in .*config\.toml$/);

    const second = await hooks('install', ['--agent', 'codex']);
    expect(second.stdout).toMatch(/already installed .*nothing changed; trusted in .* already/);
    expect(await read(configFile)).toBe(config);
    expect(await backups(codex, 'config.toml')).toHaveLength(1);

    const un = await hooks('uninstall', ['--agent', 'codex']);
    expect(un.exitCode, un.stderr).toBe(0);
    expect(un.stdout).toMatch(/removed its trust from/);
    expect(await read(configFile)).toBe(configBefore);
    expect(JSON.parse(await read(hooksFile))).toEqual(JSON.parse(hooksBefore));
  });

  it('uninstall: a user hook after ours moves up, and its trust moves with it', async () => {
    const hooksFile = join(codex, 'hooks.json');
    const configFile = join(codex, 'config.toml');
    await mkdir(codex, { recursive: true });
    await writeFile(configFile, '[features]\ndaemon_auto_start = false\n');
    expect((await hooks('install', ['--agent', 'codex'])).exitCode).toBe(0);
    // The user adds a hook of their own after ours, and Codex records its trust.
    const h = JSON.parse(await read(hooksFile));
    h.hooks.SessionStart.push({ hooks: [USER_HOOK] });
    await writeFile(hooksFile, JSON.stringify(h, null, 2));
    const userHash = codexHookHash(undefined, USER_HOOK);
    await writeFile(configFile, `${await read(configFile)}\n[hooks.state."${codexTrustKey(hooksFile, 1, 0)}"]\ntrusted_hash = "${userHash}"\nenabled = true\n`);

    expect((await hooks('uninstall', ['--agent', 'codex'])).exitCode).toBe(0);
    expect(JSON.parse(await read(hooksFile)).hooks.SessionStart).toEqual([{ hooks: [USER_HOOK] }]);
    expect(await read(configFile)).toBe(`[features]\ndaemon_auto_start = false\n\n[hooks.state."${codexTrustKey(hooksFile, 0, 0)}"]\ntrusted_hash = "${userHash}"\nenabled = true\n`);
  });

  it('under a $CODEX_HOME that is a symlink, the trust key names the real path (Codex 0.171.0 resolves $CODEX_HOME, not ~/.codex)', async () => {
    const real = join(fx.root, 'dotfiles', 'codex');
    await mkdir(real, { recursive: true });
    await symlink(real, codex);
    expect((await hooks('install', ['--agent', 'codex'])).exitCode).toBe(0);
    expect(await read(join(real, 'config.toml'))).toContain(`[hooks.state."${codexTrustKey(join(real, 'hooks.json'), 0, 0)}"]`);
    expect((await hooks('status', ['--agent', 'codex'])).stdout).toMatch(/trusted in /);
  });

  it('a config.toml that does not parse is refused: one line, nothing changed in either file', async () => {
    await mkdir(codex, { recursive: true });
    await writeFile(join(codex, 'config.toml'), 'model = "gpt-5\n[features\n');
    const r = await hooks('install', ['--agent', 'codex']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^tmux-fleet: codex: .*config\.toml: not valid TOML \(.*\); nothing changed$/);
    expect(await readdir(codex)).toEqual(['config.toml']);
  });

  it('trust written in a form this edit does not handle is refused, and hooks.json is given back', async () => {
    const hooksFile = join(codex, 'hooks.json');
    await mkdir(codex, { recursive: true });
    await writeFile(hooksFile, '{"hooks":{}}\n');
    // Our key as a dotted key inside [hooks.state]: appending a table of the same name would redefine it.
    await writeFile(join(codex, 'config.toml'), `[hooks.state]\n"${codexTrustKey(hooksFile, 0, 0)}".trusted_hash = "sha256:old"\n`);
    const r = await hooks('install', ['--agent', 'codex']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/records hook trust in a form tmux-fleet does not edit/);
    expect(await read(hooksFile)).toBe('{"hooks":{}}\n');
  });

  it("status says when Codex's daemon mode would keep any pane from being proven, and how to turn it off", async () => {
    await mkdir(codex, { recursive: true });
    await writeFile(join(codex, 'config.toml'), 'model = "gpt-5"\n');
    const r = await hooks('install', ['--agent', 'codex']);
    expect(r.stdout).toMatch(/note: Codex starts its app-server daemon by default.*set \[features\] daemon_auto_start = false in .*config\.toml \(or run codex --no-daemon\)/);
    const s = await hooks('status', ['--agent', 'codex', '--json']);
    expect(JSON.parse(s.stdout).agents[0]).toMatchObject({ agent: 'codex', installed: true, trusted: true, daemonMode: true });
  });
});

describe('hooks for Gemini CLI', () => {
  it('install adds a named group that matches every source and keeps the user\'s settings; uninstall removes only it', async () => {
    await mkdir(gemini, { recursive: true });
    const settings = { security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } }, hooks: { SessionEnd: [{ matcher: '*', hooks: [{ name: 'mine', type: 'command', command: 'x' }] }] } };
    await writeFile(join(gemini, 'settings.json'), JSON.stringify(settings, null, 2));
    const r = await hooks('install', ['--agent', 'gemini']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^gemini: added the SessionStart hook/);
    const after = JSON.parse(await read(join(gemini, 'settings.json')));
    expect(after.security).toEqual(settings.security);
    // The user's SessionEnd hook first, our state hook after it.
    const state = { matcher: '*', hooks: [{ name: 'tmux-fleet', type: 'command', command: ours.replace(/ stamp$/, ' event --agent gemini') }] };
    expect(after.hooks.SessionEnd).toEqual([...settings.hooks.SessionEnd, state]);
    for (const ev of ['BeforeAgent', 'Notification', 'AfterTool', 'AfterAgent']) expect(after.hooks[ev], ev).toEqual([state]);
    expect(after.hooks.SessionStart).toEqual([{ matcher: '*', hooks: [{ name: 'tmux-fleet', type: 'command', command: ours }] }]);
    expect((await hooks('uninstall', ['--agent', 'gemini'])).exitCode).toBe(0);
    expect(JSON.parse(await read(join(gemini, 'settings.json')))).toEqual(settings);
  });
});

/** settings.json as Gemini CLI 0.61.0 reads it: line and block comments allowed, then plain JSON (no trailing comma). */
function readAsGemini(text: string): Record<string, any> {
  const errors: ParseError[] = [];
  const data = parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: false });
  expect(errors).toEqual([]);
  return data;
}

describe('hooks for Gemini CLI: a settings.json with comments', () => {
  const commented = `// Gemini CLI settings
{
  /* auth */
  "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } }, // the key is in the env
  "url": "http://example.com/a//b", // a // inside a string is no comment
  "hooks": {
    "SessionStart": [
      // my logger first
      { "matcher": "*", "hooks": [{ "name": "log", "type": "command", "command": "logger start" }] } /* after it */
    ]
  }
}
`;
  const comments = ['// Gemini CLI settings', '/* auth */', '// the key is in the env', '// a // inside a string is no comment', '// my logger first', '/* after it */'];

  it("install keeps every comment and adds our group after the user's; uninstall gives the file back byte for byte", async () => {
    await mkdir(gemini, { recursive: true });
    const file = join(gemini, 'settings.json');
    await writeFile(file, commented);
    const r = await hooks('install', ['--agent', 'gemini']);
    expect(r.exitCode, r.stderr).toBe(0);
    const after = await read(file);
    for (const c of comments) expect(after).toContain(c);
    const data = readAsGemini(after);
    expect(data.url).toBe('http://example.com/a//b');
    expect(data.hooks.SessionStart).toEqual([
      { matcher: '*', hooks: [{ name: 'log', type: 'command', command: 'logger start' }] },
      { matcher: '*', hooks: [{ name: 'tmux-fleet', type: 'command', command: ours }] },
    ]);
    expect((await hooks('status', ['--agent', 'gemini'])).exitCode).toBe(0);
    expect((await hooks('install', ['--agent', 'gemini'])).stdout).toMatch(/already installed/);
    const un = await hooks('uninstall', ['--agent', 'gemini']);
    expect(un.exitCode, un.stderr).toBe(0);
    expect(await read(file)).toBe(commented);
  });

  it('without a hooks key: install adds one, uninstall gives the file back; a comment in what uninstall removes is kept', async () => {
    await mkdir(gemini, { recursive: true });
    const file = join(gemini, 'settings.json');
    const plain = '{\n  // only a comment and a key\n  "general": { "vimMode": true }\n}\n';
    await writeFile(file, plain);
    expect((await hooks('install', ['--agent', 'gemini'])).exitCode).toBe(0);
    expect(readAsGemini(await read(file)).hooks.SessionStart[0].hooks[0].name).toBe('tmux-fleet');
    expect((await hooks('uninstall', ['--agent', 'gemini'])).exitCode).toBe(0);
    expect(await read(file)).toBe(plain);

    // The user wrote a comment inside our group: uninstall removes the group, never the comment.
    expect((await hooks('install', ['--agent', 'gemini'])).exitCode).toBe(0);
    const withNote = (await read(file)).replace('"name": "tmux-fleet"', '/* keep me */ "name": "tmux-fleet"');
    await writeFile(file, withNote);
    expect((await hooks('uninstall', ['--agent', 'gemini'])).exitCode).toBe(0);
    const left = await read(file);
    expect(left).toContain('/* keep me */');
    expect(left).toContain('// only a comment and a key');
    expect(readAsGemini(left).hooks).toBeUndefined();
  });

  it('a file Gemini CLI would not read either (a trailing comma) is refused: one line, nothing changed', async () => {
    await mkdir(gemini, { recursive: true });
    const file = join(gemini, 'settings.json');
    const broken = '{\n  // a comment\n  "general": { "vimMode": true },\n}\n';
    await writeFile(file, broken);
    const r = await hooks('install', ['--agent', 'gemini']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/settings\.json: not valid JSON .*nothing changed/);
    expect(await read(file)).toBe(broken);
  });

  it("Claude Code's settings.json takes no comments: refused as before", async () => {
    const file = join(fx.claudeDir, 'settings.json');
    await writeFile(file, '{\n  // a comment\n  "model": "opus"\n}\n');
    const r = await hooks('install', ['--agent', 'claude']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/settings\.json: not valid JSON/);
  });
});

describe('one backup per file', () => {
  it('install and uninstall, again and again: each file has one backup, <file>.bak-tmux-fleet, the file as it was before the last change', async () => {
    const claudeSettings = join(fx.claudeDir, 'settings.json');
    const hooksFile = join(codex, 'hooks.json');
    const configFile = join(codex, 'config.toml');
    const geminiSettings = join(gemini, 'settings.json');
    await mkdir(codex, { recursive: true });
    await mkdir(gemini, { recursive: true });
    await writeFile(claudeSettings, `${JSON.stringify({ model: 'opus' }, null, 2)}\n`);
    await writeFile(hooksFile, `${JSON.stringify({ hooks: { SessionStart: [{ hooks: [USER_HOOK] }] } }, null, 2)}\n`);
    await writeFile(configFile, userConfig(hooksFile));
    await writeFile(geminiSettings, `${JSON.stringify({ theme: 'dark' }, null, 2)}\n`);
    const files = [claudeSettings, hooksFile, configFile, geminiSettings];
    let before: string[] = [];
    for (const action of ['install', 'uninstall', 'install', 'uninstall', 'install']) {
      before = await Promise.all(files.map(read));
      const r = await hooks(action);
      expect(r.exitCode, r.stderr).toBe(0);
    }
    for (const [i, file] of files.entries()) {
      const dir = join(file, '..');
      const name = file.slice(dir.length + 1);
      expect(await backups(dir, name), file).toEqual([`${name}.bak-tmux-fleet`]);
      expect(await read(`${file}.bak-tmux-fleet`), file).toBe(before[i]);
    }
    // What the last run says it kept is that file.
    const un = await hooks('uninstall', ['--agent', 'claude']);
    expect(un.stdout).toContain(`(backup: ${claudeSettings}.bak-tmux-fleet)`);
  });
});

describe('which agents', () => {
  it('without --agent: Claude Code, and each other agent whose directory exists; one line each', async () => {
    let r = await hooks('status');
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual(['claude']);
    await mkdir(codex, { recursive: true });
    await mkdir(gemini, { recursive: true });
    r = await hooks('install');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual(['claude', 'codex', 'gemini']);
    r = await hooks('status');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('an agent that is not one is a usage error', async () => {
    const r = await hooks('install', ['--agent', 'aider']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/aider/);
  });
});
