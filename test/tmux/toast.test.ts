import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { toastCommand } from '../../src/tmux/apply';
import { oneToastPerClient, toastSession, toastsFor } from '../../src/tmux/toast';
import { optionDefault } from '../../src/options';
import { waitFor } from '../helpers/env';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

describe('toastsFor', () => {
  it("picks the session's clients and skips control-mode ones", () => {
    const clients = [
      { name: '/dev/pts/1', session: 'a', control: '0', messageTime: '2500' },
      { name: 'client-99', session: 'a', control: '1', messageTime: '' },
      { name: '/dev/pts/2', session: 'b', control: '0', messageTime: '' },
    ];
    expect(toastsFor(clients, 'a', 'hi #x')).toEqual([{ client: '/dev/pts/1', text: 'hi #x', durationMs: 2500 }]);
  });

  it.each([
    ['', Number(optionDefault('@fleet-message-time'))],
    ['8000', 8000],
    ['0', 0],
    [' 900 ', 900],
    ['soon', Number(optionDefault('@fleet-message-time'))],
    ['-5', Number(optionDefault('@fleet-message-time'))],
  ])('a client whose @fleet-message-time reads %j is toasted for %d ms', (read, ms) => {
    const [toast] = toastsFor([{ name: 'c', session: 'a', control: '0', messageTime: read }], 'a', 'x');
    expect(toast?.durationMs).toBe(ms);
    expect(toastCommand(toast!)).toEqual(['display-message', '-c', 'c', '-d', String(ms), 'x']);
  });
});

describe('oneToastPerClient: a client shows one message at a time, so its toasts of one write are joined', () => {
  const t = (client: string, text: string, durationMs?: number) => (durationMs === undefined ? { client, text } : { client, text, durationMs });
  it.each([
    ['nothing', [], []],
    ['one toast', [t('a', 'fleet: x', 4000)], [t('a', 'fleet: x', 4000)]],
    ['two clients, one each', [t('a', 'fleet: x', 4000), t('b', 'fleet: y', 4000)], [t('a', 'fleet: x', 4000), t('b', 'fleet: y', 4000)]],
    [
      'a hop and a wait for one client: in order, "fleet: " said once',
      [t('a', 'fleet: work came back to 5ab1', 4000), t('a', 'fleet: job 7e57ab1e waits: permission prompt', 4000)],
      [t('a', 'fleet: work came back to 5ab1 · job 7e57ab1e waits: permission prompt', 4000)],
    ],
    ['the same text twice: once', [t('a', 'fleet: x', 4000), t('a', 'fleet: x', 4000)], [t('a', 'fleet: x', 4000)]],
    ['the longest duration', [t('a', 'fleet: x', 1000), t('a', 'fleet: y', 9000), t('a', 'fleet: z')], [t('a', 'fleet: x · y · z', 9000)]],
    ['text without the prefix kept whole', [t('a', 'hello'), t('a', 'fleet: y')], [t('a', 'hello · fleet: y')]],
    [
      'clients interleaved: each in its first place',
      [t('b', 'fleet: 1'), t('a', 'fleet: 2'), t('b', 'fleet: 3')],
      [t('b', 'fleet: 1 · 3'), t('a', 'fleet: 2')],
    ],
  ] as const)('%s', (_what, toasts, want) => {
    expect(oneToastPerClient(toasts)).toEqual(want);
  });
});

describe('toastSession on a real server', () => {
  let server: TestServer;
  let client: StatusClient;
  const attachControl = () =>
    execa('tmux', ['-L', server.name, '-C', 'attach-session', '-t', '=work:'], { input: undefined, stdin: 'pipe', reject: false });
  // Its own type, inferred once: relating it to the default ResultPromise costs tsc seconds.
  let control: ReturnType<typeof attachControl>;
  beforeAll(async () => {
    server = await startServer();
    await server.run(['set-option', '-g', 'display-time', '3000']);
    await server.newSession('work');
    client = await attachStatusClient(server, 'work');
    control = attachControl();
    await waitFor(async () => (await server.run(['list-clients', '-t', '=work:', '-F', '#{client_control_mode}'])).includes('1'), 'the control client');
  });
  afterAll(async () => {
    control?.kill();
    await client?.kill();
    await server?.kill();
  });

  it('keeps the toast for @fleet-message-time, not for display-time', async () => {
    // With display-time at 1 ms a toast without -d is gone before it can be read.
    await server.tmux.chain([
      ['set-option', '-g', 'display-time', '1'],
      ['set-option', '-g', '@fleet-message-time', '20000'],
    ]);
    try {
      expect(await toastSession(server.tmux, 'work', 'fleet: still here')).toBe(1);
      await client.waitForStatus('fleet: still here');
    } finally {
      await server.tmux.chain([
        ['set-option', '-g', 'display-time', '3000'],
        ['set-option', '-gu', '@fleet-message-time'],
      ]);
    }
  });

  it('shows the text (a # stays text) on the attached client, not on control clients', async () => {
    expect(await toastSession(server.tmux, 'work', 'fleet: hello #[fg=red]world')).toBe(1);
    await client.waitForStatus('fleet: hello #[fg=red]world');
    expect(await toastSession(server.tmux, 'missing', 'x')).toBe(0);
  });
});
