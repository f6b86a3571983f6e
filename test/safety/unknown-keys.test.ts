// What tmux-fleet does not own comes back byte for byte: task.json after a
// takeover, settings.json after hooks install/uninstall.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { taskDir } from '../../src/context';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

const SID = '11111111-2222-4333-8444-555555555555';
const OLD = '99999999-2222-4333-8444-555555555555';

let fe: FleetEnv;
beforeEach(async () => {
  fe = await makeFleetEnv();
});
afterEach(async () => {
  await fe.cleanup();
});

describe('task.json after takeover --force', () => {
  it('keeps a big integer, __proto__, duplicate keys, 1e2 and \\u00e9 exactly as written', async () => {
    const unknown = [
      '"big": 12345678901234567890',
      '"__proto__": {"driverSid": "EVIL"}',
      '"dup": "first"',
      '"dup": "second"',
      '"exp": 1e2',
      '"caf\\u00e9": "\\u00e9t\\u00e9"',
      '"nested": {"n": 12345678901234567890, "list": [1e2, -0.0]}',
    ];
    const text = `{\n  "slug": "u1",\n  "driverSid": "${OLD}",\n  ${unknown.join(',\n  ')},\n  "createdAt": "2026-01-01T00:00:00.000Z"\n}\n`;
    const dir = taskDir(fe.home, 'u1');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'task.json'), text, { mode: 0o600 });
    const r = await runFleet(['takeover', 'u1', '--as', SID, '--force'], { env: fe.env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const after = await readFile(join(dir, 'task.json'), 'utf8');
    for (const u of unknown) expect(after).toContain(u);
    expect(JSON.parse(after)).toMatchObject({ driverSid: SID, priorDriverSid: OLD, driverEpoch: 1 });
  });
});

describe('settings.json after hooks install and uninstall', () => {
  const original = [
    '{',
    '    "big": 12345678901234567890,',
    '    "exp": 1e2,',
    '    "caf\\u00e9": "\\u00e9t\\u00e9",',
    '    "dup": 1, "dup": 2,',
    '    "hooks": {',
    '        "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]',
    '    }',
    '}',
    '',
  ].join('\n');

  it('only the hook entry is edited; uninstall gives the file back byte for byte', async () => {
    const file = join(fe.claudeDir, 'settings.json');
    await writeFile(file, original);
    const install = await runFleet(['hooks', 'install'], { env: fe.env });
    expect(install.exitCode).toBe(0);
    const installed = await readFile(file, 'utf8');
    // Everything before the insertion point is untouched, the file's indentation is used.
    expect(installed.startsWith(original.slice(0, original.indexOf('        "Stop"')))).toBe(true);
    expect(installed).toContain('"Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}],\n        "SessionStart": [\n            {\n');
    expect(JSON.parse(installed).hooks.SessionStart[0].hooks[0].command).toMatch(/ stamp$/);
    const uninstall = await runFleet(['hooks', 'uninstall'], { env: fe.env });
    expect(uninstall.exitCode).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(original);
  });
});
