// A hostile registry value never freezes the status line: a waitingFor of
// 16,500 characters once made the supervisor's one tmux write "command too
// long", and no session updated. Each shown value is capped and writes are
// split under tmux's limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEGMENT_CHARS } from '../../src/status/segments';
import { waitFor } from '../helpers/env';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { makeWorld, type World } from '../helpers/stand-in-world';

let w: World;
let supervisor: RunningSupervisor;
const A = 'aaaa0000-0000-4000-8000-00000000000a';
const B = 'bbbb0000-0000-4000-8000-00000000000b';

beforeAll(async () => {
  w = await makeWorld();
  await exportFleetEnv(w.server, w.fe);
  for (const [name, sid] of [['op-long', A], ['op-short', B]] as const) {
    await w.server.newSession(name);
    await w.server.run(['set-option', '-t', `=${name}:`, '@claude_session_id', sid]);
  }
  await w.liveRow(A, { status: 'waiting', waitingFor: `approve ${'x'.repeat(16_500)}` });
  await w.liveRow(B, { status: 'busy' });
  supervisor = await startSupervisor(w.server, w.fe);
});
afterAll(async () => {
  await supervisor?.stop().catch(() => undefined);
  await w?.close();
});

describe('status writes with a 16,500-character waitingFor', () => {
  it('every session updates; the long value is shown cut', async () => {
    const agent = (s: string) => w.server.run(['show-options', '-qv', '-t', `=${s}:`, '@fleet-agent']).then((v) => v.trim());
    await waitFor(async () => (await agent('op-short')).includes('busy'), 'the other session updated', 15_000);
    const long = await waitFor(async () => agent('op-long'), 'the long session updated', 15_000);
    expect(long).toContain('waiting: approve xxx');
    expect(long.length).toBeLessThan(MAX_SEGMENT_CHARS + 80);
    expect(long).toContain('…');
  });
});
