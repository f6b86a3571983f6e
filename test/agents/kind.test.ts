// Which agent a process is, from what /proc shows of it (values as observed
// with Codex CLI 0.171.0, Gemini CLI 0.61.0 and Claude Code 2.1.332 on Linux).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatAgentProcess, hookCaller, parseAgentProcess, agentProcessLiveness } from '../../src/agents/agent-process';
import { identifyAgent, lookAt, type ProcessLook } from '../../src/agents/kind';
import { readProcStat } from '../../src/proc';
import { waitFor } from '../helpers/env';

const CODEX = '/x/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex';
const DAEMON = '/h/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex';
const look = (comm: string, exe: string, argv: string[], env: Record<string, string> = {}): ProcessLook => ({
  comm,
  exe,
  argv,
  env: () => new Map(Object.entries(env)),
});

describe('identifyAgent', () => {
  it.each<[string, ProcessLook, ReturnType<typeof identifyAgent>]>([
    ["Codex's native binary (the agent)", look('codex', CODEX, [CODEX]), { kind: 'codex', daemon: false }],
    ["Codex's app-server daemon", look('codex', DAEMON, [DAEMON, 'app-server', '--listen', 'unix://', '--managed-daemon']), { kind: 'codex', daemon: true }],
    ["Codex's daemon updater", look('codex', DAEMON, [DAEMON, 'app-server', 'daemon', 'pid-update-loop']), { kind: 'codex', daemon: true }],
    ["Codex's node wrapper is not the agent", look('node', '/usr/bin/node', ['node', '/x/node_modules/.bin/codex']), null],
    [
      "Gemini's relaunched child (the agent)",
      look('node', '/usr/bin/node', ['/usr/bin/node', '--max-old-space-size=12052', '/x/node_modules/.bin/gemini', '--session-id', 'u'], { GEMINI_CLI_NO_RELAUNCH: 'true' }),
      { kind: 'gemini', daemon: false },
    ],
    ["Gemini's first process is not the agent", look('node', '/usr/bin/node', ['node', '/x/node_modules/.bin/gemini', '--session-id', 'u']), null],
    ['Gemini by its bundle file', look('node', '/usr/bin/node', ['node', '/x/@google/gemini-cli/bundle/gemini.js'], { GEMINI_CLI_NO_RELAUNCH: 'true' }), { kind: 'gemini', daemon: false }],
    ["a node tool run by Gemini (it inherits the variable) is not Gemini", look('node', '/usr/bin/node', ['node', 'build.js'], { GEMINI_CLI_NO_RELAUNCH: 'true' }), null],
    ["Claude Code's native binary", look('claude', '/c/claude-code/2.1.332/claude', ['/c/claude-code/2.1.332/claude']), { kind: 'claude', daemon: false }],
    ['Claude Code from npm', look('node', '/usr/bin/node', ['node', '/g/lib/node_modules/@anthropic-ai/claude-code/cli.js']), { kind: 'claude', daemon: false }],
    ['a shell', look('sh', '/usr/bin/dash', ['sh', '-c', 'codex']), null],
    ['nothing readable', { comm: null, exe: null, argv: null, env: () => null }, null],
  ])('%s', (_name, l, want) => {
    expect(identifyAgent(l)).toEqual(want);
  });
});

describe('the recorded process', () => {
  it.each([
    ['codex 19467 35906', { kind: 'codex', pid: 19467, start: '35906' }],
    ['other 12 0', { kind: 'other', pid: 12, start: '0' }],
    ['codex 0 1', null],
    ['aider 1 2', null],
    ['codex 1', null],
    ['codex 1 2 3', null],
    ['', null],
    ['#(touch x) 1 2', null],
  ])('parses %j', (text, want) => {
    expect(parseAgentProcess(text)).toEqual(want);
    if (want) expect(formatAgentProcess(want as never)).toBe(text);
  });

  it('is live while that very process runs: a zombie, an exit or another start time is gone', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid as number;
    const exited = new Promise((r) => child.on('exit', r));
    const start = String(await waitFor(() => readProcStat(pid)?.startTicks, 'sleep started'));
    expect(agentProcessLiveness({ pid, start })).toBe('live');
    expect(agentProcessLiveness({ pid, start: String(Number(start) + 1) })).toBe('gone');
    // Killed and not reaped yet: a zombie.
    process.kill(pid, 'SIGKILL');
    await waitFor(() => readProcStat(pid)?.state === 'Z' || readProcStat(pid) === null, 'sleep killed');
    expect(agentProcessLiveness({ pid, start })).toBe('gone');
    await exited;
  });

  it('the hook finds no agent above the test runner, and lists the ancestors it walked', () => {
    const caller = hookCaller(process.pid);
    expect(caller.found).toBe('none');
    if (caller.found === 'none') expect(caller.ancestors[0]).toBe(process.pid);
    expect(identifyAgent(lookAt(process.pid))).toBeNull();
  });
});
