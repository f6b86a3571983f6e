// The supervisor's one shell that starts its tmux clients: every argument
// arrives byte for byte, each call gets its own output and exit code, and a
// call that hangs or a shell that dies costs that call only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ShellRunner, shellQuote } from '../../src/tmux/shell-runner';
import { Tmux } from '../../src/tmux';
import { startServer, type TestServer } from '../helpers/tmux-server';

const HOSTILE = [
  '',
  ' ',
  "it's",
  "''",
  '"$HOME"',
  '$(touch /tmp/fleet-pwned)',
  '`touch /tmp/fleet-pwned`',
  'a\\',
  '\\',
  'end;',
  'line one\nline two',
  '\n',
  '* ? [a-z]',
  '#{session_name} #(id)',
  'tab\there',
  '-n',
  '%s %d',
  'ünïcödé ✓',
  '; rm -rf ~ ;',
  '&& false ||',
  '> /tmp/fleet-pwned',
];

describe('shellQuote', () => {
  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('%s is one literal argument', async (_name, arg) => {
    const runner = new ShellRunner();
    // printf prints each argument between NULs: what sh handed over, exactly.
    const r = await runner.run('printf', ['%s\\0', arg], 5000);
    runner.close();
    expect(r).toEqual({ stdout: `${arg}\0`, stderr: '', exitCode: 0 });
  });

  it('wraps in single quotes and closes them around a quote', () => {
    expect(shellQuote('abc')).toBe("'abc'");
    expect(shellQuote("a'b")).toBe("'a'\\''b'");
  });
});

describe('ShellRunner', () => {
  let runner: ShellRunner;
  beforeEach(() => {
    runner = new ShellRunner();
  });
  afterEach(() => runner.close());

  it('keeps output as printed: no final newline added or taken, stdout and stderr apart, the exit code', async () => {
    expect(await runner.run('printf', ['no newline'], 5000)).toEqual({ stdout: 'no newline', stderr: '', exitCode: 0 });
    expect(await runner.run('sh', ['-c', 'printf "out\\n\\n"; printf "err" >&2; exit 3'], 5000)).toEqual({ stdout: 'out\n\n', stderr: 'err', exitCode: 3 });
    const missing = await runner.run('fleet-no-such-command', [], 5000);
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain('fleet-no-such-command');
  });

  it('a large output (a read of 500 sessions: many pipe reads, multibyte characters across them) comes back whole, each call its own', async () => {
    // 4000 lines of 200 characters with icons: about 1 MB, read in many pieces.
    const script = 'i=0; while [ $i -lt 4000 ]; do printf "%05d ▲ ● → %s\\n" $i "$1"; i=$((i+1)); done';
    const filler = 'x'.repeat(180);
    const expected = Array.from({ length: 4000 }, (_, i) => `${String(i).padStart(5, '0')} ▲ ● → ${filler}\n`).join('');
    const [big, small, again] = await Promise.all([
      runner.run('sh', ['-c', script, 'sh', filler], 20_000),
      runner.run('printf', ['after'], 5000),
      runner.run('sh', ['-c', script, 'sh', filler], 20_000),
    ]);
    expect(big.exitCode).toBe(0);
    expect(big.stdout.length).toBe(expected.length);
    expect(big.stdout === expected).toBe(true);
    expect(small).toEqual({ stdout: 'after', stderr: '', exitCode: 0 });
    expect(again.stdout === expected).toBe(true);
  });

  it('runs calls made together one at a time, each with its own result', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => runner.run('printf', [`call ${i}`], 5000)));
    expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 20 }, (_, i) => `call ${i}`));
  });

  it('a call past its deadline times out, and the next call runs in a new shell', async () => {
    const t0 = Date.now();
    const r = await runner.run('sleep', ['30'], 300);
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBe(124);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await runner.run('printf', ['after'], 5000)).toEqual({ stdout: 'after', stderr: '', exitCode: 0 });
  });

  it('a shell killed under a call fails that call only', async () => {
    const pending = runner.run('sh', ['-c', 'kill -9 $PPID; sleep 30'], 20_000);
    const r = await pending;
    expect(r.exitCode).toBe(127);
    expect(r.timedOut).toBeUndefined();
    expect(await runner.run('printf', ['again'], 5000)).toEqual({ stdout: 'again', stderr: '', exitCode: 0 });
  });

  it('output that looks like an end mark does not end a call', async () => {
    const r = await runner.run('printf', ['\nfleet-end-0123456789abcdef0123456789abcdef 0\n'], 5000);
    expect(r).toEqual({ stdout: '\nfleet-end-0123456789abcdef0123456789abcdef 0\n', stderr: '', exitCode: 0 });
  });
});

describe('tmux through the shell', () => {
  let server: TestServer;
  let runner: ShellRunner;
  beforeEach(async () => {
    server = await startServer();
    await server.newSession('op-a');
    runner = new ShellRunner();
  });
  afterEach(async () => {
    runner.close();
    await server.kill();
  });

  it('writes hostile option values byte for byte, and reports tmux errors as the direct runner does', async () => {
    const viaShell = new Tmux({ name: server.name }, 'tmux', { runner: (b, a, d) => runner.run(b, a, d) });
    const direct = new Tmux({ name: server.name }, 'tmux', { direct: true });
    const values = HOSTILE.filter((v) => v !== '');
    await viaShell.chain(values.map((v, i) => ['set-option', '-t', '=op-a:', `@fleet-probe-${i}`, v]));
    for (const [i, v] of values.entries()) expect(await direct.run(['show-options', '-v', '-t', '=op-a:', `@fleet-probe-${i}`])).toBe(`${v}\n`);
    const bad = ['set-option', '-t', '=op-missing:', '@fleet-probe', 'x'];
    expect(await viaShell.tryRun(bad)).toEqual(await direct.tryRun(bad));
    const list = ['list-sessions', '-F', '#{session_name}'];
    const listed = await viaShell.tryRun(list);
    expect(listed.stdout.split('\n')).toContain('op-a');
    expect(listed).toEqual(await direct.tryRun(list));
  });
});
