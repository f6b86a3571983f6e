// Hostile text on the way out: registry and tmux values never reach a terminal
// with their control characters, one value never splits a line, long input is
// clipped in errors and tables, and the log is one escaped line per entry, 0600
// whoever made it.
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLog, logLine } from '../../src/log';
import { describeFollow, hopToast, renderAgent, renderHop, sid8 } from '../../src/status/hop-text';
import { follow } from '../../src/registry/follow';
import { CELL_MAX, formatColumns } from '../../src/status/table';
import { clip, echoInput, printable } from '../../src/text';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

const HOSTILE = '\u001b]2;OWNED\u0007\u001b[2J';
const HOSTILE_JOB = 'job\u001b[31m\u0007\nsecond line';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('printable, clip, echoInput', () => {
  const cases: [string, string, string][] = [
    ['plain text stays', 'abc-123 é ✔', 'abc-123 é ✔'],
    ['OSC title and clear screen', HOSTILE, ' ]2;OWNED [2J'],
    ['newline, tab and CR', 'a\nb\tc\rd', 'a b c d'],
    ['NUL and DEL', 'a\u0000\u007fb', 'a b'],
    ['C1 CSI', 'a\u009b31mb', 'a 31mb'],
    ['bidi override and line separator', 'a\u202eb\u2028c', 'a b c'],
  ];
  it.each(cases)('%s', (_what, input, shown) => {
    expect(printable(input)).toBe(shown);
    expect(printable(input)).not.toMatch(CONTROL);
  });

  it('clip keeps short text and cuts long text to max characters ending in …', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe('ab…');
    expect([...clip('é'.repeat(500), 80)]).toHaveLength(80);
    expect(echoInput('x'.repeat(100_000))).toBe(`"${'x'.repeat(79)}…"`);
  });
});

describe('registry values in the HOP column, follow and toasts', () => {
  const row = (o: Record<string, unknown>) => ({ row: { pid: 1, status: 'busy', ...o }, alive: true, file: 'x' }) as never;

  it('a hostile sessionId and parkedJobId come out printable, on one line', () => {
    const rows = [row({ sessionId: HOSTILE, parkedJobId: HOSTILE_JOB }), row({ sessionId: `${HOSTILE}-job`, jobId: HOSTILE_JOB, waitingFor: HOSTILE })];
    const f = follow(rows, HOSTILE);
    const shown = [
      describeFollow(f),
      describeFollow(follow([row({ sessionId: HOSTILE, parkedJobId: HOSTILE_JOB })], HOSTILE)),
      renderHop({ base: HOSTILE, attached: `x${HOSTILE}` }),
      sid8(HOSTILE),
      hopToast({ kind: 'park', base: HOSTILE, to: HOSTILE, jobId: HOSTILE_JOB }),
      renderAgent({ sessionId: HOSTILE, status: 'waiting', waitingFor: HOSTILE_JOB, alive: true }),
    ];
    for (const s of shown) {
      expect(s).not.toMatch(CONTROL);
      expect(s.split('\n')).toHaveLength(1);
    }
    expect(shown[1]).toContain('parked on job job [31m second line, which no row runs');
  });

  it('tasks columns are capped: a 100 KB value makes no 100 KB-wide column', () => {
    const lines = formatColumns(['TASK', 'AGENT', 'AGE'], [['a', `waiting: ${'w'.repeat(100_000)}`, '1m'], ['b', HOSTILE, '2m']]);
    for (const l of lines) {
      expect([...l].length).toBeLessThan(CELL_MAX + 20);
      expect(l).not.toMatch(CONTROL);
    }
  });
});

describe('the CLI', () => {
  let fe: FleetEnv;
  beforeEach(async () => {
    fe = await makeFleetEnv();
  });
  afterEach(async () => {
    await fe.cleanup();
  });

  it('follow prints a hostile chain as one printable line', async () => {
    await writeFile(join(fe.registry, `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: HOSTILE, parkedJobId: HOSTILE_JOB, status: 'idle' }));
    await writeFile(join(fe.registry, '2.json'), JSON.stringify({ pid: process.pid, sessionId: `b${HOSTILE}`, jobId: HOSTILE_JOB, status: 'busy' }));
    const r = await runFleet(['follow', HOSTILE], { env: fe.env });
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a 100 KB slug is echoed clipped, and an error never carries a control character', async () => {
    const r = await runFleet(['owner', `${'A'.repeat(100_000)}`, '--as', 'x'], { env: fe.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.length).toBeLessThan(400);
    expect(r.stderr).toContain(`"${'A'.repeat(79)}…"`);
    const hostile = await runFleet(['owner', HOSTILE, '--as', 'x'], { env: fe.env });
    expect(hostile.exitCode).toBe(2);
    expect(hostile.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });
});

describe('the log', () => {
  let fe: FleetEnv;
  beforeEach(async () => {
    fe = await makeFleetEnv();
    await mkdir(fe.home, { recursive: true, mode: 0o700 });
  });
  afterEach(async () => {
    await fe.cleanup();
  });

  it('one line per entry, time first, control characters escaped; a log made 0644 by a shell redirect becomes 0600', async () => {
    const file = join(fe.home, 'log');
    closeSync(openSync(file, 'w', 0o644));
    await chmod(file, 0o644);
    appendLog(fe.home, 'stamp', `bad\u0000row ${HOSTILE}\nsecond line`);
    const text = readFileSync(file, 'utf8');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(text).not.toMatch(/[\u0000\u0007\u001b]/);
    const lines = text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z stamp\[\d+\]: bad\\x00row \\x1b\]2;OWNED\\x07\\x1b\[2J second line$/);
    expect(logLine('a\tb')).toBe('a\\x09b');
  });

  it('a log made by us is 0600', () => {
    appendLog(fe.home, 'supervise', 'hello');
    expect(statSync(join(fe.home, 'log')).mode & 0o777).toBe(0o600);
  });
});
