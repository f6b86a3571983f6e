// The fixture that reads what an attached client's status line shows, proved on a literal text.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

let inner: TestServer;
let client: StatusClient | undefined;

beforeEach(async () => {
  inner = await startServer();
  await inner.newSession('watched');
});

afterEach(async () => {
  await client?.kill();
  client = undefined;
  await inner.kill();
});

it('attachStatusClient shows the inner status line as a client draws it', async () => {
  client = await attachStatusClient(inner, 'watched');
  const probe = `probe-${randomBytes(4).toString('hex')}`;
  // Default status-left is "[#{session_name}] ": the attached session's name is drawn.
  await client.waitForStatus('[watched]');
  expect(await client.statusLine()).not.toContain(probe);

  await inner.run(['set-option', '-t', '=watched:', 'status-left-length', '60']);
  await inner.run(['set-option', '-t', '=watched:', 'status-left', `<${probe}> ##kept`]);
  const line = await client.waitForStatus(`<${probe}> #kept`);
  expect(line.startsWith(`<${probe}> #kept`)).toBe(true);
  // The status line is the last line of the screen.
  const screen = await client.screen();
  expect(screen.replace(/\n+$/, '').split('\n').pop()).toBe(await client.statusLine());
});

it('waitForStatus fails when the text never appears', async () => {
  client = await attachStatusClient(inner, 'watched');
  await expect(client.waitForStatus('never-shown-text', 600)).rejects.toThrow(/status never matched/);
});
