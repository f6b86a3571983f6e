import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa, type ResultPromise } from 'execa';
import { toastSession, toastsFor } from '../../src/tmux/toast';
import { waitFor } from '../helpers/env';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

describe('toastsFor', () => {
  it("picks the session's clients and skips control-mode ones", () => {
    const clients = [
      { name: '/dev/pts/1', session: 'a', control: '0' },
      { name: 'client-99', session: 'a', control: '1' },
      { name: '/dev/pts/2', session: 'b', control: '0' },
    ];
    expect(toastsFor(clients, 'a', 'hi #x')).toEqual([{ client: '/dev/pts/1', text: 'hi #x' }]);
  });
});

describe('toastSession on a real server', () => {
  let server: TestServer;
  let client: StatusClient;
  let control: ResultPromise;
  beforeAll(async () => {
    server = await startServer();
    await server.run(['set-option', '-g', 'display-time', '3000']);
    await server.newSession('work');
    client = await attachStatusClient(server, 'work');
    control = execa('tmux', ['-L', server.name, '-C', 'attach-session', '-t', '=work:'], { input: undefined, stdin: 'pipe', reject: false });
    await waitFor(async () => (await server.run(['list-clients', '-t', '=work:', '-F', '#{client_control_mode}'])).includes('1'), 'the control client');
  });
  afterAll(async () => {
    control?.kill();
    await client?.kill();
    await server?.kill();
  });

  it('shows the text (a # stays text) on the attached client, not on control clients', async () => {
    expect(await toastSession(server.tmux, 'work', 'fleet: hello #[fg=red]world')).toBe(1);
    await client.waitForStatus('fleet: hello #[fg=red]world');
    expect(await toastSession(server.tmux, 'missing', 'x')).toBe(0);
  });
});
