// The supervisor's stamps by ancestry (docs/ownership.md#the-stamp-without-the-hook):
// each stamp the pane proof calls for goes through the stamp's own code path,
// so a pending task resolves and a /clear hands over exactly as with the hook.
import type { Context } from '../context';
import { processRecord } from '../agents/agent-process';
import { appendLog } from '../log';
import type { Tmux } from '../tmux/client';
import type { StampAction } from './pane-agents';
import { isValidSid } from '../sid';
import { stampPane } from './stamp';

/** How long the same stamp is not tried again (the snapshot that shows it may not be read yet). */
export const RETRY_MS = 5000;

export class PaneStamper {
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly ctx: Context,
    private readonly tmux: Tmux,
    private readonly stamped: () => void,
  ) {}

  apply(actions: readonly StampAction[]): void {
    const now = Date.now();
    for (const [key, at] of this.recent) if (now - at > RETRY_MS) this.recent.delete(key);
    for (const a of actions) {
      const key = `${a.session}\t${a.sid}`;
      if (this.recent.has(key) || !isValidSid(a.sid)) continue;
      this.recent.set(key, now);
      const agent = processRecord(a.kind, a.pid);
      void stampPane(this.ctx, this.tmux, a.pane, { sid: a.sid, source: a.source }, { runByAgent: false, nudge: false, agent }).then((out) => {
        if (out.stamped) {
          const what = [out.filled ? `resolved task ${out.filled}` : '', out.handedOver.length > 0 ? `handed over ${out.handedOver.join(', ')}` : '']
            .filter(Boolean)
            .join('; ');
          appendLog(this.ctx.home, 'supervise', `stamped ${a.session} (pane ${a.pane}) with ${a.sid} by ancestry (${a.source})${what ? `: ${what}` : ''}`);
          this.stamped();
        }
      });
    }
  }
}
