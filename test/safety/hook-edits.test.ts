// Every file `hooks install|uninstall` edits for the user keeps every byte and
// the mode it did not mean to change: a value holding bytes that are no UTF-8
// (\xff\xfe) comes back as those bytes, not as U+FFFD; a hooks.json given back
// after config.toml could not be written keeps its mode. Claude Code's and
// Gemini CLI's settings.json and Codex CLI's hooks.json, through the CLI.
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexTrustKey } from '../../src/hooks/codex-trust';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

let fx: FleetEnv;
beforeEach(async () => {
  fx = await makeFleetEnv();
});
afterEach(async () => {
  await fx.cleanup();
});

const hooks = (action: string, agent: string) => runFleet(['hooks', action, '--agent', agent], { env: fx.env });
const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

/** A settings file whose values hold bytes that are no UTF-8 (and some that are), with another hook of the event. */
function hostileBytes(): Buffer {
  return Buffer.concat([
    Buffer.from('{\n  "note": "'),
    Buffer.from([0xff, 0xfe, 0x41, 0xc3]),
    Buffer.from('",\n  "name": "caf\u00e9 \u{1f600}",\n  "hooks": {\n    "SessionStart": [\n      {\n        "hooks": [\n          { "type": "command", "command": "echo '),
    Buffer.from([0xfe, 0xff]),
    Buffer.from('" }\n        ]\n      }\n    ]\n  }\n}\n'),
  ]);
}

const files = (): [string, string][] => [
  ['claude', join(fx.claudeDir, 'settings.json')],
  ['codex', join(fx.env.CODEX_HOME as string, 'hooks.json')],
  ['gemini', join(fx.env.GEMINI_CLI_HOME as string, '.gemini', 'settings.json')],
];

describe('hooks install + uninstall keep every byte and the mode', () => {
  it.each(['claude', 'codex', 'gemini'])('%s: raw \\xff\\xfe in a value come back as those bytes; the mode (0644) stays', async (agent) => {
    const file = files().find(([a]) => a === agent)![1];
    await mkdir(join(file, '..'), { recursive: true });
    const before = hostileBytes();
    await writeFile(file, before);
    await chmod(file, 0o644);
    const install = await hooks('install', agent);
    expect(install.exitCode, install.stderr).toBe(0);
    const installed = await readFile(file);
    // The user's bytes are still there, byte for byte, and ours were added.
    expect(installed.includes(Buffer.from([0x22, 0xff, 0xfe, 0x41, 0xc3, 0x22]))).toBe(true);
    expect(installed.includes(Buffer.from([0x65, 0x63, 0x68, 0x6f, 0x20, 0xfe, 0xff, 0x22]))).toBe(true);
    expect(installed.toString('utf8')).toMatch(/tmux-fleet\.cjs stamp/);
    expect(await modeOf(file)).toBe(0o644);
    const uninstall = await hooks('uninstall', agent);
    expect(uninstall.exitCode, uninstall.stderr).toBe(0);
    expect((await readFile(file)).equals(before)).toBe(true);
    expect(await modeOf(file)).toBe(0o644);
  });

  it("codex: when config.toml cannot be written, hooks.json is given back with its bytes and its mode (0644 stays 0644)", async () => {
    const codex = fx.env.CODEX_HOME as string;
    const hooksFile = join(codex, 'hooks.json');
    await mkdir(codex, { recursive: true });
    const before = hostileBytes();
    await writeFile(hooksFile, before);
    await chmod(hooksFile, 0o644);
    // Our trust key written as a dotted key: the edit of config.toml is refused after hooks.json was written.
    await writeFile(join(codex, 'config.toml'), `[hooks.state]\n"${codexTrustKey(hooksFile, 1, 0)}".trusted_hash = "sha256:old"\n`);
    const r = await hooks('install', 'codex');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/records hook trust in a form tmux-fleet does not edit/);
    expect((await readFile(hooksFile)).equals(before)).toBe(true);
    expect(await modeOf(hooksFile)).toBe(0o644);
  });

  it('codex: a config.toml that is not UTF-8 is refused, both files as they were (decoding it would write U+FFFD back)', async () => {
    const codex = fx.env.CODEX_HOME as string;
    await mkdir(codex, { recursive: true });
    const config = Buffer.concat([Buffer.from('# my notes '), Buffer.from([0xff, 0xfe]), Buffer.from('\nmodel = "gpt-5"\n')]);
    await writeFile(join(codex, 'config.toml'), config);
    const hooksBefore = '{"hooks":{}}\n';
    await writeFile(join(codex, 'hooks.json'), hooksBefore);
    const r = await hooks('install', 'codex');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/config\.toml: not valid UTF-8, as TOML must be; nothing changed/);
    expect((await readFile(join(codex, 'config.toml'))).equals(config)).toBe(true);
    expect(await readFile(join(codex, 'hooks.json'), 'utf8')).toBe(hooksBefore);
  });
});
