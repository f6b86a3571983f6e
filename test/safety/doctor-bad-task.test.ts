// doctor --session on a session whose @fleet-task is not a slug: once exit 2
// with no check lines; now every check line, that one failed, exit 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorld, type World } from '../helpers/stand-in-world';

let w: World;
beforeAll(async () => {
  w = await makeWorld();
  await w.server.newSession('odd');
  await w.server.run(['set-option', '-t', '=odd:', '@fleet-task', `../../${'x'.repeat(200)} y`]);
});
afterAll(async () => w?.close());

describe('doctor --session with a hostile @fleet-task', () => {
  it('reports it as a failed check among the others', async () => {
    const r = await w.fleet(['doctor', '--session', 'odd']);
    expect(r.exitCode).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    const bad = lines.find((l) => l.includes('is not a task slug'));
    expect(bad).toMatch(/^✖ task: odd's @fleet-task/);
    expect(bad!.length).toBeLessThan(300);
  });
});
