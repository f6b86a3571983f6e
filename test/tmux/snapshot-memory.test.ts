// A tmux read's strings kept across wakes (a session's name and stamp in a
// view, an index, the proof's memory) must not keep the whole read alive: V8
// keeps a cut of 13 characters or more as a view of its parent, and a wake for
// a tmux change keeps the views of the sessions it did not compute again, each
// from an older read. Measured on the heap (a size, not a time).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readSnapshot, SESSION_FIELDS, PANE_FIELDS } from '../../src/tmux/snapshot';
import type { Tmux } from '../../src/tmux/client';
import { FIELD_SEP } from '../../src/tmux/args';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What the supervisor's tmux read returns for 500 sessions, segment values (with non-Latin-1 icons) and all. */
function output(read: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 500; i++) {
    const session: Record<keyof typeof SESSION_FIELDS, string> = {
      name: `session-number-${i}`,
      created: '1796000000',
      attached: '0',
      stamp: `${String(read).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`,
      nonce: 'n'.repeat(32),
      task: `task-number-${i}`,
      agentProc: `claude ${1000 + i} 123456`,
      owner: `#[fg=black,bg=green] ● owner task-number-${i} #[default]`,
      hop: '#[fg=cyan] 10e3 → e9e4 #[default]',
      agent: `#[fg=yellow] ⏳ waiting: approve Bash ${'x'.repeat(60)} #[default]`,
      attention: '#[fg=red] ▲ 3 waiting #[default]',
      hopShort: '#[fg=cyan] ↪ #[default]',
      agentShort: '#[fg=yellow] ⏳ #[default]',
      unseen: '',
    };
    lines.push(['S', ...Object.keys(SESSION_FIELDS).map((k) => session[k as keyof typeof session])].join(FIELD_SEP));
    lines.push(['P', `session-number-${i}`, `%${i}`, String(2000 + i), `@${i}`, '', `⠏ Write a haiku number ${i} | work`, '1', `/dev/pts/${i}`].join(FIELD_SEP));
  }
  expect(Object.keys(PANE_FIELDS)).toHaveLength(8);
  return `${lines.join('\n')}\n`;
}

describe('readSnapshot', () => {
  it("what outlives a read (a session's name, stamp and panes) does not keep the read alive", async () => {
    const reads = 30;
    const kept: string[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let r = 0; r < reads; r++) {
      const text = output(r);
      const snap = await readSnapshot({ chain: async () => text } as unknown as Tmux);
      const s = snap.sessions[r] as (typeof snap.sessions)[number];
      kept.push(s.name, s.stamp, s.nonce, s.task, s.agentProc, (snap.panes[r] as (typeof snap.panes)[number]).session);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(kept[1]).toMatch(/^00000000-0000-4000-8000-0{12}$/);
    // One read's text is about 0.5 MB (two bytes a character: the icons): thirty kept whole measured 14.6 MB here,
    // the copies 1.5 MB (the kept strings and what the test itself leaves).
    expect(grown).toBeLessThan(4 * 1048576);
  });
});
