// task.json as bytes: a value tmux-fleet does not own comes back byte for byte
// on every write, invalid UTF-8 included (`"\xff\xfe"` was rewritten as
// U+FFFD); a file nested deeper than any record needs is refused with an error
// naming the file (every write failed with `Maximum call stack size exceeded`,
// naming nothing), and the judge answers 5 for it.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { taskDir } from '../../src/context';
import { TaskFileError } from '../../src/errors';
import { MAX_TASK_DEPTH } from '../../src/tasks/parse';
import { readTask, updateTask } from '../../src/tasks/store';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

const SID = '11111111-2222-4333-8444-555555555555';
const OLD = '99999999-2222-4333-8444-555555555555';

let fe: FleetEnv;
let file: string;
beforeEach(async () => {
  fe = await makeFleetEnv();
  const dir = taskDir(fe.home, 'b1');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  file = join(dir, 'task.json');
});
afterEach(async () => {
  await fe.cleanup();
});

const record = (extra: Buffer) =>
  Buffer.concat([Buffer.from(`{\n  "slug": "b1",\n  "driverSid": "${OLD}",\n  "label": "caf\u00e9",\n`), extra, Buffer.from(',\n  "createdAt": "2026-01-01T00:00:00.000Z"\n}\n')]);

describe('invalid UTF-8 in what tmux-fleet does not own', () => {
  const cases: [string, Buffer][] = [
    ['a string of bytes that are no UTF-8', Buffer.from([0x20, 0x20, 0x22, 0x78, 0x22, 0x3a, 0x20, 0x22, 0xff, 0xfe, 0x22])],
    ['a truncated sequence inside text', Buffer.concat([Buffer.from('  "note": "ab'), Buffer.from([0xe2, 0x82]), Buffer.from('cd"')])],
    ['a key of such bytes', Buffer.concat([Buffer.from('  "'), Buffer.from([0xc0, 0xaf]), Buffer.from('": {"n": 12345678901234567890}')])],
    ['nested in an unknown object', Buffer.concat([Buffer.from('  "deep": {"list": ["'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('", 1e2]}')])],
  ];

  it.each(cases)('%s survives takeover --force byte for byte', async (_what, extra) => {
    await writeFile(file, record(extra), { mode: 0o600 });
    const r = await runFleet(['takeover', 'b1', '--as', SID, '--force'], { env: fe.env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const after = await readFile(file);
    expect(after.includes(extra), `${after.toString('latin1')}`).toBe(true);
    // What tmux-fleet owns is written anew, and the label (valid UTF-8) is kept.
    expect(JSON.parse(after.toString('utf8'))).toMatchObject({ driverSid: SID, priorDriverSid: OLD, label: 'caf\u00e9' });
  });

  it('survives any number of writes', async () => {
    const extra = cases[0]![1];
    await writeFile(file, record(extra), { mode: 0o600 });
    for (let i = 0; i < 3; i++) await updateTask(fe.home, 'b1', (t) => (t ? { ...t, label: `round ${i}` } : t));
    expect((await readFile(file)).includes(extra)).toBe(true);
  });
});

describe('a task.json nested too deep', () => {
  const nested = (depth: number) => Buffer.from(`  "deep": ${'['.repeat(depth)}${']'.repeat(depth)}`);

  it(`${MAX_TASK_DEPTH} levels in all are read and written`, async () => {
    // The record is one level; the unknown value takes the rest.
    await writeFile(file, record(nested(MAX_TASK_DEPTH - 1)), { mode: 0o600 });
    await updateTask(fe.home, 'b1', (t) => (t ? { ...t, label: 'ok' } : t));
    expect((await readTask(fe.home, 'b1'))?.label).toBe('ok');
  });

  it('4200 levels: refused with an error naming the file; the judge answers 5; nothing is written', async () => {
    const text = record(nested(4200));
    await writeFile(file, text, { mode: 0o600 });
    let caught: unknown;
    try {
      await readTask(fe.home, 'b1');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TaskFileError);
    expect((caught as Error).message).toBe(`${file}: nested deeper than ${MAX_TASK_DEPTH} levels (not read)`);

    const takeover = await runFleet(['takeover', 'b1', '--as', SID, '--force'], { env: fe.env });
    expect(takeover.exitCode).toBe(1);
    expect(takeover.stderr).toBe(`tmux-fleet: ${file}: nested deeper than ${MAX_TASK_DEPTH} levels (not read)`);
    const owner = await runFleet(['owner', 'b1', '--as', SID], { env: fe.env });
    expect(owner.exitCode).toBe(5);
    expect(owner.stdout).toContain(`nested deeper than ${MAX_TASK_DEPTH} levels`);
    expect((await readFile(file)).equals(text)).toBe(true);
  });
});
