// `tmux-fleet stamp`: the agents' SessionStart hook (docs/ownership.md#the-stamp).
// A hook's output reaches the agent and its failure would stop it: silent, exit 0.
import type { Context } from '../context';
import { runStamp } from '../ownership/stamp';
import type { Args } from './types';

/** Reads the hook JSON; gives up after a while so a stdin that never closes cannot hang the agent. */
function readStdin(timeoutMs = 3000): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      process.stdin.removeAllListeners();
      process.stdin.pause();
      process.stdin.unref?.();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, timeoutMs);
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

/** The SessionStart hook: prints nothing (hook stdout reaches the agent), always exits 0. */
export async function run(args: Args, ctx: Context): Promise<number> {
  const stdinText = args.sid === undefined ? await readStdin() : '';
  await runStamp(ctx, { sidFlag: args.sid, stdinText });
  return 0;
}
