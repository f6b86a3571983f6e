// doctor and `hooks status` read each agent's hook the same way: the command
// `hooks install` writes is the one both compare with, for Claude Code, Codex
// CLI and Gemini CLI alike (docs/ownership.md#agents). No tmux server is
// needed for these lines.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

let fenv: FleetEnv;

beforeEach(async () => {
  fenv = await makeFleetEnv(`fleet-test-nohooks-${process.pid}`);
  await mkdir(fenv.env.CODEX_HOME as string, { recursive: true });
  await writeFile(join(fenv.env.CODEX_HOME as string, 'config.toml'), '[features]\ndaemon_auto_start = false\n');
  await mkdir(join(fenv.env.GEMINI_CLI_HOME as string, '.gemini'), { recursive: true });
});

afterEach(async () => {
  await fenv?.cleanup();
});

const hookLines = (stdout: string) => stdout.split('\n').filter((l) => /^. hook/.test(l));

describe('doctor on the hooks hooks install wrote', () => {
  it('every agent: ✔ installed, never "another helper than this one"; the same as hooks status', async () => {
    const installed = await runFleet(['hooks', 'install'], { env: fenv.env });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const status = await runFleet(['hooks', 'status'], { env: fenv.env });
    expect(status.exitCode, status.stdout).toBe(0);
    expect(status.stdout).not.toContain('another helper');
    const doctor = await runFleet(['doctor'], { env: fenv.env });
    const lines = hookLines(doctor.stdout);
    expect(lines, doctor.stdout).toHaveLength(3);
    for (const l of lines) {
      expect(l, doctor.stdout).toMatch(/^✔ /);
      expect(l).not.toContain('another helper');
    }
    // The command doctor names is the one in the file, node and all.
    const codexHooks = JSON.parse(await readFile(join(fenv.env.CODEX_HOME as string, 'hooks.json'), 'utf8'));
    const command: string = codexHooks.hooks.SessionStart[0].hooks[0].command;
    expect(command.startsWith(`${process.execPath} `) || command.startsWith(`'${process.execPath}' `), command).toBe(true);
    expect(lines.find((l) => l.startsWith('✔ hook (codex)'))).toContain(command);
  });

  it('a hook of another helper file is said so by both, with the fix; one whose helper is gone fails, for Codex as for Claude Code', async () => {
    const otherHelper = join(fenv.root, 'elsewhere', 'tmux-fleet.cjs');
    await mkdir(join(otherHelper, '..'), { recursive: true });
    await writeFile(otherHelper, '');
    const codexFile = join(fenv.env.CODEX_HOME as string, 'hooks.json');
    const withCommand = (command: string) => `${JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command, timeout: 10 }] }] } }, null, 2)}\n`;
    await writeFile(codexFile, withCommand(`${process.execPath} ${otherHelper} stamp`));
    const status = await runFleet(['hooks', 'status', '--agent', 'codex'], { env: fenv.env });
    expect(status.stdout).toMatch(/another helper than this one.*tmux-fleet hooks install points it here/);
    let doctor = await runFleet(['doctor'], { env: fenv.env });
    expect(hookLines(doctor.stdout).find((l) => l.includes('hook (codex)'))).toMatch(/another helper than this one/);
    await writeFile(codexFile, withCommand(`${process.execPath} /nonexistent/tmux-fleet.cjs stamp`));
    doctor = await runFleet(['doctor'], { env: fenv.env });
    expect(hookLines(doctor.stdout).find((l) => l.includes('hook (codex)'))).toMatch(
      /^✖ hook \(codex\): SessionStart runs \/nonexistent\/tmux-fleet\.cjs, which does not exist .* — fix: tmux-fleet hooks install --agent codex$/,
    );
  });

  it('this helper run by another node (a link to it) is this helper: installed, not another one', async () => {
    const installed = await runFleet(['hooks', 'install', '--agent', 'gemini'], { env: fenv.env });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const file = join(fenv.env.GEMINI_CLI_HOME as string, '.gemini', 'settings.json');
    const node = join(fenv.root, 'bin', 'node');
    await mkdir(join(node, '..'), { recursive: true });
    await symlink(process.execPath, node);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(JSON.stringify(process.execPath).slice(1, -1), node));
    expect(await readFile(file, 'utf8')).toContain(node);
    const status = await runFleet(['hooks', 'status', '--agent', 'gemini'], { env: fenv.env });
    expect(status.exitCode, status.stdout).toBe(0);
    expect(status.stdout).not.toContain('another helper');
    const doctor = await runFleet(['doctor'], { env: fenv.env });
    expect(hookLines(doctor.stdout).find((l) => l.includes('hook (gemini)'))).toMatch(new RegExp(`^✔ hook \\(gemini\\): installed in .*${node.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});
