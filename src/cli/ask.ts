// Questions on the terminal, for the commands that confirm before they act
// (done, gc). Without a terminal a question cannot be asked: the command says
// which flag answers it instead, and nothing changes.
import { UsageError } from '../errors';
import { writeStderr, writeStdout } from './output';

/** Whether stdin and stdout are a terminal a question can be asked on. */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY);
}

/** A terminal to ask on, or a UsageError naming the flag that answers instead. */
export function needTerminal(command: string, flag: string): void {
  if (!canAsk()) throw new UsageError(`${command}: no terminal to confirm on; give ${flag} to confirm; nothing changed`);
}

let reader: import('node:readline').Interface | null = null;

/** Asks a yes/no question on the terminal (default no); the question goes to stderr under --json. */
export async function askYesNo(question: string, json = false): Promise<boolean> {
  const { createInterface } = await import('node:readline');
  reader ??= createInterface({ input: process.stdin, output: json ? process.stderr : process.stdout, terminal: true });
  const answer = await new Promise<string>((resolve) => {
    const r = reader as import('node:readline').Interface;
    const onClose = () => resolve('');
    r.once('close', onClose);
    r.question(question, (a) => {
      r.off('close', onClose);
      resolve(a);
    });
  });
  return /^\s*y(es)?\s*$/i.test(answer);
}

/** Lets the process end once the questions are over. */
export function doneAsking(): void {
  reader?.close();
  reader = null;
}

/** A line for the person at the terminal (stdout, or stderr when stdout holds the JSON object). */
export function say(text: string, json: boolean): void {
  if (json) writeStderr(`${text}\n`);
  else writeStdout(`${text}\n`);
}
