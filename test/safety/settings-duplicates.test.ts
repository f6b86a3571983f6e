// A settings.json with a key twice on the way to our hook: JSON.parse (Claude
// Code, `hooks status`) reads the last copy, a text edit (jsonc-parser) finds
// the first. `hooks install` edited the copy nobody reads, said "added", and
// each install added another. Now an edit that would land in a copy nobody
// reads is refused with one line naming the file and the key; nothing changes.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { duplicateKeyOnPath } from '../../src/json-text';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

let fe: FleetEnv;
let file: string;

beforeEach(async () => {
  fe = await makeFleetEnv();
  await mkdir(fe.claudeDir, { recursive: true });
  file = join(fe.claudeDir, 'settings.json');
});
afterEach(async () => {
  await fe.cleanup();
});

const hooks = (args: string[]) => runFleet(['hooks', ...args], { env: fe.env });
const OTHER = '{"hooks": [{"type": "command", "command": "echo hi"}]}';

describe('duplicateKeyOnPath', () => {
  it.each<[string, string, (string | number)[], { path: (string | number)[]; key: string; lines: [number, number] } | null]>([
    ['no duplicate', '{"a": {"b": 1}, "c": 2}', ['a'], null],
    ['the key followed, twice at the top', '{"a": 1,\n "x": 2,\n "a": {"b": 1}}', ['a', 'b'], { path: [], key: 'a', lines: [1, 3] }],
    ['twice inside the value followed (the copy JSON.parse reads)', '{"a": {"b": 1,\n"b": 2}}', ['a'], { path: ['a'], key: 'b', lines: [1, 2] }],
    ['twice in an array item under it', '{"a": [{"c": 1, "c": 2}]}', ['a'], { path: ['a', 0], key: 'c', lines: [1, 1] }],
    ['elsewhere: not on the path, not reported', '{"z": 1, "z": 2, "a": {}}', ['a'], null],
    ['a sibling of the path: not reported', '{"a": {"b": {}, "q": 1, "q": 2}}', ['a', 'b'], null],
  ])('%s', (_what, text, path, want) => {
    const got = duplicateKeyOnPath(text, path);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatchObject(want);
  });
});

describe('hooks install and uninstall with a duplicate key in settings.json', () => {
  it.each([
    ['"hooks" twice at the top', `{\n  "hooks": {"PreToolUse": []},\n  "model": "x",\n  "hooks": {"SessionStart": [${OTHER}]}\n}\n`, '"hooks" appears twice', 'lines 2 and 4'],
    ['"SessionStart" twice in hooks', `{\n  "hooks": {\n    "SessionStart": [],\n    "SessionStart": [${OTHER}]\n  }\n}\n`, '"SessionStart" appears twice in hooks', 'lines 3 and 4'],
  ])('%s: refused with one line naming the file and the key, nothing changed', async (_what, text, key, lines) => {
    await writeFile(file, text, { mode: 0o600 });
    for (const action of ['install', 'install', 'uninstall']) {
      const r = await hooks([action]);
      expect(r.exitCode, action).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(`${file}: the key ${key} (${lines})`)]);
      expect(r.stderr).toContain('nothing changed');
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
    const status = await hooks(['status']);
    expect(status.stdout).toContain('not installed');
  });

  it('a duplicate elsewhere in the file does not stop the install, and the hook lands in the copy that counts', async () => {
    const text = `{\n  "model": "a",\n  "model": "b",\n  "hooks": {"SessionStart": [${OTHER}]}\n}\n`;
    await writeFile(file, text, { mode: 0o600 });
    const r = await hooks(['install']);
    expect(r.exitCode, r.stderr).toBe(0);
    const status = await hooks(['status']);
    expect(status.stdout).toMatch(/^claude: installed in /);
    expect(readFileSync(file, 'utf8')).toContain('"model": "a",\n  "model": "b"');
  });
});
