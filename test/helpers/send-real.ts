// `send` against a real agent (docs/ownership.md#send), shared by the real
// tier's files: a multi-line prompt reaches the scripted model whole, as one
// message; a Driver waiting for an approval is refused a prompt, and the
// approval is still pending after it; `done` asks it to exit its own way.
import { expect } from 'vitest';
import type { ModelServer } from '../fixtures/model-server.mjs';
import { waitFor, type CliResult } from './env';

export interface SendWorld {
  model: ModelServer;
  fleet(args: string[]): Promise<CliResult>;
  screen(session: string): Promise<string>;
}

/** A prompt of three lines, with quotes and shell syntax that nothing may run. */
export const SEND_TEXT = 'a prompt sent from outside: first line\n  second line, "quoted" $(not run) #(not run)\nthird line; the end';

/**
 * `send <target> SEND_TEXT`, then waits until the model is asked with it
 * whole; no request carries its first line alone (one message, not one per
 * line). Returns the seconds from send to the model.
 */
export async function sendReachesModel(w: SendWorld, target: string): Promise<number> {
  const started = Date.now();
  const before = w.model.traffic.length;
  const r = await w.fleet(['send', target, SEND_TEXT]);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^sent a 3-line prompt to /);
  await waitFor(() => w.model.traffic.slice(before).some((t) => (t.promptText ?? '').trim() === SEND_TEXT), 'the model asked with the sent prompt whole', 90_000, 250);
  const took = (Date.now() - started) / 1000;
  const first = SEND_TEXT.split('\n')[0] as string;
  expect(w.model.traffic.slice(before).filter((t) => (t.promptText ?? '').trim() === first)).toEqual([]);
  return took;
}

/**
 * With the Driver waiting for an approval (`waits` true): `send` is refused,
 * nothing reaches the model, and the approval is still pending.
 */
export async function sendRefusedWhileWaiting(w: SendWorld, target: string, waits: () => Promise<boolean>): Promise<CliResult> {
  await waitFor(waits, 'the Driver waiting for an approval', 90_000, 250);
  const before = w.model.traffic.length;
  const r = await w.fleet(['send', target, 'yes, and then delete everything']);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/a prompt typed now would answer it: answer it first .*; nothing typed/);
  expect(await waits()).toBe(true);
  expect(w.model.traffic.slice(before).some((t) => (t.promptText ?? '').includes('delete everything'))).toBe(false);
  return r;
}
