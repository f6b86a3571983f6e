// Which agent a spawn's command runs (from the file it runs, by its npm
// package), and how each agent is handed a launch prompt, a session id and a
// resume: unit tables, then real spawns of stand-in packages on a private tmux server.
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { agentOfCommand, launchArgs, programWord, type PromptForm } from '../../src/agents/command';
import { agentArgv } from '../../src/ownership/spawn';
import { waitFor } from '../helpers/env';
import { makeWorld, sq, type World } from '../helpers/stand-in-world';

describe('programWord', () => {
  it.each([
    ['codex', 'codex'],
    ['  gemini --model x', 'gemini'],
    ['env FOO=1 BAR=2 claude', 'claude'],
    ['env -i PATH=/bin /opt/bin/codex', '/opt/bin/codex'],
    ['FOO=1 gemini', 'gemini'],
    ['exec codex', 'codex'],
    ['"my agent"', null],
    ['$(which codex)', null],
    ['', null],
  ])('%j', (command, want) => {
    expect(programWord(command)).toBe(want);
  });
});

describe('launchArgs', () => {
  const id = () => '11111111-2222-4333-8444-555555555555';
  const dashes = { kind: 'after-options' } as const;
  const gemini = { kind: 'option', option: '--prompt-interactive' } as const;
  const last = { kind: 'last' } as const;
  it.each([
    ['claude', null, { args: [], prompt: dashes }],
    ['codex', null, { args: [], prompt: dashes }],
    ['gemini', null, { args: ['--session-id', id()], prompt: gemini }],
    [null, null, { args: [], prompt: last }],
    ['claude', 'S', { args: ['--resume', 'S'], prompt: dashes }],
    ['codex', 'S', { args: ['resume', 'S'], prompt: dashes }],
    ['gemini', 'S', { args: ['--resume', 'S'], prompt: gemini }],
    [null, 'S', { args: ['--resume', 'S'], prompt: last }],
  ] as const)('%s resume %s', (kind, resume, want) => {
    expect(launchArgs(kind, { resume, newSessionId: id })).toEqual(want);
  });
});

describe('agentArgv: the launch prompt is one argument, never an option', () => {
  const prompts = ['--settings={"hooks":{}}', '- fix the login bug\n- add tests\n', '-x', 'plain "quotes" $(id) `id` ;\n'];
  /** What the wrapper hands the command: each argument on its own, as printf's %s shows them. */
  const argvOf = async (form: PromptForm, prompt: string, extra: string[] = []) => {
    const file = join(w.fe.root, 'prompt.md');
    await writeFile(file, prompt);
    const [cmd, ...args] = agentArgv(`printf '<%s>'`, extra, file, form);
    return execFileSync(cmd as string, args, { encoding: 'utf8' });
  };
  it.each(prompts)('%j after `--` (Claude Code, Codex CLI), the resume before it', async (prompt) => {
    expect(await argvOf({ kind: 'after-options' }, prompt, ['resume', 'S'])).toBe(`<resume><S><--><${prompt}>`);
  });
  it.each(prompts)('%j as --prompt-interactive=<text> (Gemini CLI)', async (prompt) => {
    expect(await argvOf({ kind: 'option', option: '--prompt-interactive' }, prompt)).toBe(`<--prompt-interactive=${prompt}>`);
  });
  it('another agent: the last argument as it is', async () => {
    expect(await argvOf({ kind: 'last' }, 'fix it\n')).toBe('<fix it\n>');
  });
});

let w: World;
let bin: string;
let rec: string;

/** A stand-in npm package whose bin records its argv and then sleeps, linked from bin/ as npm links it. */
async function fakePackage(name: string, binName: string, rel: string): Promise<void> {
  const dir = join(w.fe.root, 'node_modules', ...name.split('/'));
  const file = join(dir, rel);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0' }));
  await writeFile(file, `#!${process.execPath}\nrequire('node:fs').writeFileSync(process.env.REC + '-' + ${JSON.stringify(binName)}, JSON.stringify(process.argv.slice(2)));\nsetTimeout(() => {}, 600000);\n`);
  await chmod(file, 0o755);
  await symlink(file, join(bin, binName));
}

beforeAll(async () => {
  w = await makeWorld();
  bin = join(w.fe.root, 'bin');
  rec = join(w.fe.root, 'argv');
  await mkdir(bin, { recursive: true });
  await fakePackage('@openai/codex', 'codex', 'bin/codex.js');
  await fakePackage('@google/gemini-cli', 'gemini', 'bundle/gemini.js');
  await fakePackage('@anthropic-ai/claude-code', 'claude', 'cli.js');
  await writeFile(join(bin, 'other-agent'), '#!/bin/sh\nexec sleep 600\n');
  await chmod(join(bin, 'other-agent'), 0o755);
});
afterAll(async () => {
  await w?.close();
});

describe('agentOfCommand', () => {
  it('names the agent by the package of the file the command runs, through npm links', () => {
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    expect(agentOfCommand('codex', env, w.fe.root)).toBe('codex');
    expect(agentOfCommand('env X=1 gemini --debug', env, w.fe.root)).toBe('gemini');
    expect(agentOfCommand(join(bin, 'claude'), env, w.fe.root)).toBe('claude');
    expect(agentOfCommand('other-agent', env, w.fe.root)).toBeNull();
    expect(agentOfCommand('no-such-agent', env, w.fe.root)).toBeNull();
    // A file merely named like an agent, outside any package of it: its name.
    expect(agentOfCommand('sleep', env, w.fe.root)).toBeNull();
  });
});

describe('spawn hands each agent what it takes', () => {
  const spawnWith = async (slug: string, program: string, extra: string[] = []) => {
    await rm(`${rec}-${program}`, { force: true });
    const r = await w.fleet(['spawn', slug, '--cmd', `env REC=${sq(rec)} ${program}`, '--cwd', w.fe.root, ...extra], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(await waitFor(() => readFile(`${rec}-${program}`, 'utf8').catch(() => ''), `argv of ${program}`)) as string[];
  };

  it('Gemini CLI: a session id of its own, and the launch prompt as --prompt-interactive=<text> (a positional one would run it headless)', async () => {
    const argv = await spawnWith('tg', 'gemini', ['--prompt=-i say "hi" $(x)']);
    expect(argv).toHaveLength(3);
    expect(argv[0]).toBe('--session-id');
    expect(argv[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(argv[2]).toBe('--prompt-interactive=-i say "hi" $(x)');
  });

  it('Codex CLI: the launch prompt after `--`; a resume as `resume <id>`', async () => {
    expect(await spawnWith('tc', 'codex', ['--prompt=-c=notify=["x"]'])).toEqual(['--', '-c=notify=["x"]']);
    await w.writeTask('tc', { driverSid: '01a23249-6ca9-70e1-836c-6044cce7e060', driverPane: 'op-tc' });
    await w.server.run(['kill-session', '-t', '=op-tc:']);
    expect(await spawnWith('tc', 'codex', ['--resume', '--replace'])).toEqual(['resume', '01a23249-6ca9-70e1-836c-6044cce7e060']);
  });

  it('Claude Code: the launch prompt after `--`, nothing else', async () => {
    expect(await spawnWith('tl', 'claude', ['--prompt=--settings={}'])).toEqual(['--', '--settings={}']);
    const json = await w.fleet(['spawn', 'tl2', '--cmd', 'claude', '--cwd', w.fe.root, '--json'], { env: { PATH: `${bin}:${process.env.PATH}`, REC: rec } });
    expect(JSON.parse(json.stdout).agent).toBe('claude');
  });

  it('another agent: a prompt starting with - is refused with the reason, and nothing is made', async () => {
    const r = await w.fleet(['spawn', 'tx', '--cmd', 'other-agent', '--cwd', w.fe.root, '--prompt=- fix it'], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^tmux-fleet: spawn: the prompt starts with '-', which "other-agent" could read as its options/);
    expect(await w.server.run(['has-session', '-t', '=op-tx:']).then(() => true, () => false)).toBe(false);
    expect(await readFile(join(w.fe.home, 'tasks', 'tx', 'task.json'), 'utf8').catch(() => null)).toBeNull();
  });
});
