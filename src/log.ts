// <home>/log: where problems go when there is nobody to tell (hooks, the
// supervisor, run-shell jobs). Never throws.
import { appendFileSync, mkdirSync } from 'node:fs';
import { logFile } from './context';

export function appendLog(home: string, who: string, message: string): void {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const line = `${new Date().toISOString()} ${who}[${process.pid}]: ${message.replace(/\s*\n\s*/g, ' ')}\n`;
    appendFileSync(logFile(home), line, { mode: 0o600 });
  } catch {
    /* the log is best effort */
  }
}
