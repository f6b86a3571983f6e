// The built helper, run as a user runs it (dist/tmux-fleet.cjs, clean environment).
// runFleet (execa) strips the final newline of stdout.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type CliResult, type FleetEnv } from '../helpers/env';
import { ROOT } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

let fenv: FleetEnv;
beforeAll(async () => {
  fenv = await makeFleetEnv(`fleet-test-nonexistent-${randomBytes(6).toString('hex')}`);
});
afterAll(async () => {
  await fenv.cleanup();
});

const fleet = (args: string[], env: Record<string, string | undefined> = {}) =>
  runFleet(args, { env: { ...fenv.env, ...env } });

/** Exactly one line on stderr, prefixed with the program name. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^tmux-fleet: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

describe('help and version', () => {
  it('--version prints the package version and exits 0', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await fleet(['--version']);
    expect(r).toMatchObject({ exitCode: 0, stdout: pkg.version, stderr: '' });
  });

  it('--help lists every command and the global flags, exit 0', async () => {
    const r = await fleet(['--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    for (const word of ['spawn', 'stamp', 'sid-of-pane', 'owner', 'sweep', 'takeover', 'tasks', 'follow', 'pointer', 'doctor', 'supervise', 'hooks', 'dashboard']) {
      expect(r.stdout).toContain(word);
    }
    for (const flag of ['--home', '--socket', '--socket-path', '--json', '--help', '--version']) expect(r.stdout).toContain(flag);
  });

  it('help is laid out in columns: every option line ends its type at the same column (string widths are measured)', async () => {
    // scripts/build.mjs loads string-width at its first call: a stand-in that measured nothing would break this.
    const r = await fleet(['spawn', '--help']);
    const ends = r.stdout.split('\n').filter((l) => /^\s+--\S+.*\[(string|boolean|array)\]$/.test(l)).map((l) => l.length);
    expect(ends.length).toBeGreaterThanOrEqual(10);
    expect(new Set(ends).size).toBe(1);
  });

  it.each([['owner'], ['sid-of-pane'], ['spawn']])('%s --help exits 0 and shows its usage', async (cmd) => {
    const r = await fleet([cmd, '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`tmux-fleet ${cmd}`);
  });
});

describe('usage errors: exit 2, one line on stderr naming what', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown command', ['nosuch'], /unknown command "nosuch"/],
    ['unknown command after a global flag', ['--home', '/tmp/x', 'nosuch'], /unknown command "nosuch"/],
    ['a mistyped command gets a suggestion', ['taks'], /^tmux-fleet: unknown command "taks" \(did you mean tasks\?\) \(see tmux-fleet --help\)$/],
    ['a mistyped command after a global flag', ['--json', 'doctr'], /^tmux-fleet: unknown command "doctr" \(did you mean doctor\?\)/],
    ['unknown option of a fast command', ['owner', 'a', '--bogus'], /--bogus/],
    ['unknown option of a full-CLI command', ['sweep', '--bogus'], /sweep: unknown option --bogus /],
    ['unknown option with a value (full CLI)', ['sweep', '--bogus-opt=1'], /sweep: unknown option --bogus-opt /],
    ['unknown short option (full CLI)', ['sweep', '-z'], /sweep: unknown option -z /],
    ['unexpected positional (full CLI)', ['sweep', 'extra'], /sweep: unexpected argument "extra"/],
    ['unexpected positional', ['sid-of-pane', 'a', 'b'], /"b"/],
    ['missing <slug> (fast path)', ['owner'], /owner: missing <slug>/],
    ['missing <name> (fast path)', ['sid-of-pane'], /sid-of-pane: missing <name>/],
    ['missing <slug> (full CLI)', ['spawn'], /spawn: missing <slug>/],
    ['missing <slug> after flags (full CLI)', ['--json', 'takeover', '--force'], /takeover: missing <slug>/],
    ['missing <action>', ['hooks'], /hooks: missing <action>/],
    ['bad choice: one line naming the choices', ['hooks', 'frob'], /^tmux-fleet: hooks: <action> must be one of install, uninstall, status, not "frob"$/],
    ['a mistyped choice: did you mean, as for commands', ['hooks', 'instal'], /^tmux-fleet: hooks: <action> must be one of install, uninstall, status, not "instal" \(did you mean install\?\)$/],
    ['unknown command asking for help', ['nosuch', '--help'], /unknown command "nosuch"/],
    ['missing <slug> under --json (fast path)', ['owner', '--json'], /owner: missing <slug>/],
    ['option without its value', ['owner', 'a', '--as'], /--as needs a value/],
    ['no command', [], /command/],
  ];
  it.each(cases)('%s', async (_what, args, names) => {
    const r = await fleet(args);
    expect(r.exitCode, r.stderr).toBe(2);
    const line = oneLine(r);
    expect(line).toMatch(names);
    // Under --json the error is also the one JSON object on stdout; else stdout stays empty.
    if (args.includes('--json')) expect(JSON.parse(r.stdout)).toEqual({ error: line.replace(/^tmux-fleet: /, ''), exit: 2 });
    else expect(r.stdout).toBe('');
  });

  const slugs: [string, string[]][] = [
    ['owner', ['owner', '../x']],
    ['owner (a colon)', ['owner', 'a:b']],
    ['spawn', ['spawn', 'Caps', '--cmd', 'true']],
    ['takeover', ['takeover', '.', '--as', 'sid']],
  ];
  it.each(slugs)('an invalid slug: %s', async (_what, args) => {
    const r = await fleet(args);
    expect(r.exitCode, r.stderr).toBe(2);
    const line = oneLine(r);
    expect(line).toContain(JSON.stringify(args[1]));
    expect(line).toContain('^[a-z0-9][a-z0-9_-]{0,62}$');
  });

  it('TMUX_FLEET_DEBUG=1 adds the stack; without it there is none', async () => {
    const plain = await fleet(['owner', '../x']);
    oneLine(plain);
    const debug = await fleet(['owner', '../x'], { TMUX_FLEET_DEBUG: '1' });
    expect(debug.exitCode).toBe(2);
    const lines = debug.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toBe(plain.stderr.trim());
    expect(lines.length).toBeGreaterThan(2);
    expect(debug.stderr).toMatch(/^\s+at /m);
  });
});

describe('a missing tmux server', () => {
  it.each([
    ['--socket', (n: string) => ['sid-of-pane', 'op-a', '--socket', n], (n: string) => `-L ${n}`, {}],
    ['TMUX_FLEET_SOCKET', (_n: string) => ['sid-of-pane', 'op-a'], (n: string) => `-L ${n}`, (n: string) => ({ TMUX_FLEET_SOCKET: n })],
    ['--socket-path', (n: string) => ['sid-of-pane', 'op-a', '--socket-path', `/tmp/${n}.sock`], (n: string) => `/tmp/${n}.sock`, {}],
  ] as const)('via %s: exit 1, one line naming the server', async (_via, args, named, env) => {
    const n = `fleet-test-gone-${randomBytes(6).toString('hex')}`;
    const r = await fleet(args(n), typeof env === 'function' ? env(n) : env);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toContain(named(n));
  });
});

describe('tasks, dashboard and attention without a reachable server', () => {
  it('lists no verdict it cannot tell (a live owner is not "9 other"): says the server is unreachable and how to fix it (as doctor does), exit 1', async () => {
    const dir = join(fenv.home, 'tasks', 'owned');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const now = new Date().toISOString();
    await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'owned', driverSid: 'sid-owner', driverPane: 'op-owned', driverPid: process.pid, createdAt: now, updatedAt: now }), { mode: 0o600 });
    try {
      const r = await fleet(['tasks']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(oneLine(r)).toMatch(/^tmux-fleet: tasks: tmux server -L fleet-test-nonexistent-\w+ is unreachable, so no verdict can be told: /);
      const j = await fleet(['--json', 'tasks']);
      expect(j.exitCode).toBe(1);
      expect(JSON.parse(j.stdout)).toMatchObject({ exit: 1, error: expect.stringContaining('is unreachable') });
      // The fix doctor gives for its server line ends each of them.
      const doctor = await fleet(['doctor']);
      const fix = /^✖ server: .* — fix: (.+)$/m.exec(doctor.stdout)?.[1];
      expect(fix, doctor.stdout).toMatch(/^start tmux/);
      expect(oneLine(r).endsWith(`; fix: ${fix}`), oneLine(r)).toBe(true);
      // The dashboard (and attention) behave the same: no "9 other" rows, one line, exit 1.
      for (const cmd of ['dashboard', 'attention']) {
        const d = await fleet([cmd]);
        expect(d.exitCode, `${cmd}: ${d.stdout}`).toBe(1);
        expect(d.stdout).toBe('');
        expect(oneLine(d)).toMatch(new RegExp(`^tmux-fleet: ${cmd}: tmux server -L fleet-test-nonexistent-\\w+ is unreachable, so no verdict can be told: `));
        expect(oneLine(d).endsWith(`; fix: ${fix}`), oneLine(d)).toBe(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('attention when nobody waits', () => {
  it('says so (as --jump does), exit 0; --json an empty list', async () => {
    const server = await startServer();
    try {
      await server.newSession('work');
      const env = { TMUX_FLEET_SOCKET: server.name };
      const r = await fleet(['attention'], env);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('no agent waits for you');
      const j = await fleet(['attention', '--json'], env);
      expect(JSON.parse(j.stdout)).toEqual({ waiting: [] });
    } finally {
      await server.kill();
    }
  });
});

describe('sid-of-pane on a real server', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer();
    await server.newSession('op-a');
    await server.newSession('op-b');
    await server.newSession('op-abc');
    await server.run(['set-option', '-t', '=op-a:', '@claude_session_id', 'sid-of-a-123']);
    await server.run(['set-option', '-t', '=op-abc:', '@claude_session_id', 'sid-of-abc']);
  });
  afterEach(async () => {
    await server.kill();
  });

  const on = (args: string[]) => fleet(args, { TMUX_FLEET_SOCKET: server.name });

  it('prints the stamp', async () => {
    expect(await on(['sid-of-pane', 'op-a'])).toEqual({ exitCode: 0, stdout: 'sid-of-a-123', stderr: '' });
    expect((await fleet(['sid-of-pane', 'op-abc', '--socket', server.name])).stdout).toBe('sid-of-abc');
  });

  it('--json prints exactly one JSON object', async () => {
    const r = await on(['--json', 'sid-of-pane', 'op-a']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ session: 'op-a', sid: 'sid-of-a-123' });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    ['an unstamped session', 'op-b', 'no stamp on tmux session "op-b"'],
    ['a missing session', 'op-z', 'no tmux session "op-z" on tmux server -L '],
    ['a prefix of a stamped session (never prefix-matched)', 'op-ab', 'no tmux session "op-ab" on tmux server -L '],
  ])('exit 1 for %s, one line naming it', async (_what, name, says) => {
    const r = await on(['sid-of-pane', name]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toContain(says);
  });

  it('a stamp is printed verbatim, also one that looks like a format or ends in ;', async () => {
    await server.tmux.setSessionOptions('op-b', { '@claude_session_id': '#(echo hi);' });
    expect((await on(['sid-of-pane', 'op-b'])).stdout).toBe('#(echo hi);');
  });
});

describe('an invalid task.json stays byte-for-byte the same after every command that writes', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await server.kill();
  });

  const contents: [string, string][] = [
    ['bad JSON', '{"slug": "bad", "driverSid": '],
    ['valid JSON failing the schema', '{"slug": "bad", "driverSid": "", "spawnNonce": "NOT-HEX", "keep": 1}\n'],
  ];

  it.each(contents)('%s', async (_what, text) => {
    const dir = join(fenv.home, 'tasks', 'bad');
    const file = join(dir, 'task.json');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(file, text, { mode: 0o600 });
    const before = await stat(file);
    const env = { TMUX_FLEET_SOCKET: server.name };

    // A session that claims the task, for stamp to resolve.
    await server.newSession('op-bad');
    await server.tmux.setSessionOptions('op-bad', { '@fleet-task': 'bad', '@spawn_nonce': 'a'.repeat(32) });
    const pane = (await server.tmux.display('op-bad', '#{pane_id}')).trim();

    const commands: [string[], number | null][] = [
      [['owner', 'bad', '--as', 'sid-x'], 5],
      [['takeover', 'bad', '--as', 'sid-x'], 1],
      [['takeover', 'bad', '--as', 'sid-x', '--force'], 1],
      [['sweep'], 1],
      [['spawn', 'bad', '--cmd', 'true'], 1],
      [['spawn', 'bad', '--cmd', 'true', '--replace'], 1],
      [['spawn', 'bad', '--resume'], 1],
      [['tasks'], null],
    ];
    for (const [args, code] of commands) {
      const r = await fleet(args, env);
      if (code !== null) expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).toMatch(args[0] === 'tasks' ? /bad/ : new RegExp(file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
    }
    const stamp = await fleet(['stamp', '--sid', 'sid-stamped'], { ...env, TMUX_PANE: pane });
    expect(stamp.exitCode).toBe(0);
    expect(stamp.stdout).toBe('');

    expect(await readFile(file, 'utf8')).toBe(text);
    const after = await stat(file);
    expect([after.ino, after.mtimeMs, after.mode & 0o777]).toEqual([before.ino, before.mtimeMs, 0o600]);
    // spawn refused before making a session: only the keeper and ours are there.
    expect((await server.tmux.listSessions({ n: '#{session_name}' })).map((r) => r.n).sort()).toEqual(['keeper', 'op-bad']);
  });
});
