// Process facts: pidsExisting agrees with pidExists on both of its paths.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidExists, pidsExisting } from '../src/proc';

/** A pid that existed a moment ago and is gone now (its process exited and was reaped). */
function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
}

describe('pidsExisting', () => {
  const dead = deadPid();
  const cases: [string, number[]][] = [
    ['few pids (one look-up each)', [process.pid, dead, 0, -1, 1.5]],
    ['many pids (one listing of /proc)', [process.pid, dead, 0, -1, 1.5, ...Array.from({ length: 40 }, (_, i) => 4_190_000 + i)]],
  ];
  it.each(cases)('%s: live, dead and invalid pids', (_label, pids) => {
    const got = pidsExisting(pids);
    expect(got.get(process.pid)).toBe(true);
    expect(got.get(dead)).toBe(false);
    expect(got.get(0)).toBe(false);
    expect(got.get(-1)).toBe(false);
    expect(got.get(1.5)).toBe(false);
    for (const pid of pids) expect(got.get(pid), `pid ${pid}`).toBe(pidExists(pid));
    expect(got.size).toBe(new Set(pids).size);
  });
});
