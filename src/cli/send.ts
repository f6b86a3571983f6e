// `tmux-fleet send <slug|session|job> <text>` (docs/ownership.md#send): the
// text as an argument, from --file, or from stdin (`-`).
import type { Context } from '../context';
import { UsageError, errorMessage } from '../errors';
import { MAX_SEND_BYTES, sendPrompt } from '../actions/send';
import { readUserFile, UnsafeFileError } from '../fs-safe';
import { printable } from '../text';
import type { Args } from './types';
import { writeStdout } from './output';

function readFile(file: string): string {
  try {
    // Capped: `--file /dev/zero` ends with an error, not an endless read.
    return readUserFile(file, MAX_SEND_BYTES + 1);
  } catch (err) {
    throw new UsageError(`send: ${err instanceof UnsafeFileError ? err.message : `${file}: ${errorMessage(err)}`}`);
  }
}

/** stdin to its end (a pipe, a socket, a terminal until Ctrl-D), never past the cap. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_SEND_BYTES) throw new UsageError(`send: stdin holds more than ${MAX_SEND_BYTES / 1024} KiB, the limit; nothing typed`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function run(args: Args, ctx: Context): Promise<number> {
  const file = typeof args.file === 'string' ? args.file : undefined;
  const given = typeof args.text === 'string' ? args.text : undefined;
  if (file !== undefined && given !== undefined) throw new UsageError('send: give the text or --file, not both');
  if (file === undefined && given === undefined) throw new UsageError('send: missing <text> (or --file F, or - to read stdin)');
  const source = file ?? given;
  const text = source === '-' ? await readStdin() : file !== undefined ? readFile(file) : (given as string);
  const r = await sendPrompt(ctx, String(args.target), text);
  if (ctx.json) {
    writeStdout(`${JSON.stringify(r)}\n`);
    return 0;
  }
  const where = r.kind === 'job' ? `background job ${r.jobId} (through claude attach in ${r.session})` : `${r.slug}'s Driver in ${r.session} (pane ${r.pane})`;
  writeStdout(`${printable(`sent ${r.lines === 1 ? 'a one-line prompt' : `a ${r.lines}-line prompt`} to ${where}${r.taken ? '' : '; its screen did not change after Enter yet'}`)}\n`);
  return 0;
}
