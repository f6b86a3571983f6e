// Writes that fit: batches under tmux's command-length limit, and a failing
// command (a session closed meanwhile) that costs only itself. Pure batching,
// then a real server with more than 16 KiB of writes at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, batchCommands, MAX_CHAIN_BYTES, MAX_TOAST_CHARS, toastCommand, type OptionChange } from '../../src/tmux/apply';
import { MAX_SEGMENT_CHARS, segment } from '../../src/status/segments';
import { startServer, type TestServer } from '../helpers/tmux-server';

describe('batchCommands', () => {
  const cmd = (n: number) => ['set-option', '-t', '=s:', '@x', 'v'.repeat(n)];
  it.each<[string, string[][], number[]]>([
    ['nothing', [], []],
    ['small commands share one chain', [cmd(10), cmd(10), cmd(10)], [3]],
    ['a chain is cut before it passes the budget', Array.from({ length: 10 }, () => cmd(3000)), [3, 3, 3, 1]],
    ['a command over the budget stands alone', [cmd(10), cmd(MAX_CHAIN_BYTES * 2), cmd(10)], [1, 1, 1]],
  ])('%s', (_name, cmds, sizes) => {
    const batches = batchCommands(cmds);
    expect(batches.map((b) => b.length)).toEqual(sizes);
    expect(batches.flat()).toEqual(cmds);
  });
});

describe('caps on shown values', () => {
  it('a segment is cut to its cap, with an ellipsis, before # is doubled', () => {
    const text = `${'#'.repeat(10)}${'w'.repeat(16_500)}`;
    const out = segment({ icon: '', style: '' }, text);
    expect(out).toBe(`${'##'.repeat(10)}${'w'.repeat(MAX_SEGMENT_CHARS - 11)}…`);
  });
  it('a toast is cut to its cap', () => {
    const args = toastCommand({ client: '/dev/pts/1', text: 'x'.repeat(10_000) });
    expect(args.at(-1)).toHaveLength(MAX_TOAST_CHARS);
  });
});

describe('applyChanges on a real server', () => {
  let server: TestServer;
  const names = Array.from({ length: 40 }, (_, i) => `s${i}`);
  beforeAll(async () => {
    server = await startServer();
    for (const n of names) await server.newSession(n);
  });
  afterAll(async () => server?.kill());

  it('lands 40 KiB of writes in several calls, all of them', async () => {
    const changes: OptionChange[] = names.map((n, i) => ({ session: n, option: '@fleet-agent', value: `${i}:${'a'.repeat(1000)}` }));
    const r = await applyChanges(server.tmux, changes);
    expect(r.failed).toEqual([]);
    expect(r.calls).toBeGreaterThan(1);
    for (const [i, n] of names.entries()) {
      expect(await server.run(['show-options', '-v', '-t', `=${n}:`, '@fleet-agent'])).toBe(`${i}:${'a'.repeat(1000)}\n`);
    }
  });

  it('a session gone in the middle of a batch costs only its own write', async () => {
    const changes: OptionChange[] = [
      { session: 's1', option: '@fleet-hop', value: 'one' },
      { session: 'gone-meanwhile', option: '@fleet-hop', value: 'x' },
      { session: 's2', option: '@fleet-hop', value: 'two' },
    ];
    const r = await applyChanges(server.tmux, changes);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0]).toContain('=gone-meanwhile:');
    expect(await server.run(['show-options', '-v', '-t', '=s1:', '@fleet-hop'])).toBe('one\n');
    expect(await server.run(['show-options', '-v', '-t', '=s2:', '@fleet-hop'])).toBe('two\n');
  });
});
