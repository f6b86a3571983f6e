// The registry's rows as the stand-in agent (and Claude Code) left them: each
// `<pid>.json`, parsed. A row is written to a temp file and renamed over, so
// a name listed may be gone, or mid-write, when it is read: skipped.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export type RowText = Record<string, unknown> & { sessionId?: unknown; status?: unknown };

export async function registryRows(dir: string): Promise<RowText[]> {
  const out: RowText[] = [];
  for (const name of (await readdir(dir)).filter((x) => /^\d+\.json$/.test(x))) {
    try {
      out.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as RowText);
    } catch {
      /* renamed away or mid-write */
    }
  }
  return out;
}
