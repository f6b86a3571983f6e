// The render's check mode (docs/status.md#check-mode): with
// TMUX_FLEET_CHECK_RENDER=<file>, the supervisor renders every wake a second
// time from nothing (a render with no history, every file read) and appends
// each difference to <file>. The test suite turns it on for every supervisor it
// starts and fails when the file is not empty: an incremental wake that missed
// a change cannot pass unnoticed. Twice the work per wake: tests only.
import { appendFileSync } from 'node:fs';
import type { Render, Rendered } from './segment-writes';

export const CHECK_RENDER_ENV = 'TMUX_FLEET_CHECK_RENDER';

type Flat = Map<string, string>;

/** Everything a fresh render can know of a wake, flat: each session's segments, the fleet's attention, each job window's, each unseen window's mark. */
function flatten(r: Rendered): Flat {
  const out: Flat = new Map();
  if (r.attention !== undefined) out.set('global @fleet-attention', r.attention);
  for (const [session, values] of r.values) for (const [option, value] of Object.entries(values)) out.set(`session ${session} ${option}`, value);
  for (const [window, w] of r.windows ?? new Map()) for (const [option, value] of Object.entries(w.values)) out.set(`window ${window} (${w.session}) ${option}`, String(value));
  for (const [window, w] of r.unseenWindows ?? new Map()) out.set(`window ${window} (${w.session}) unseen`, w.value);
  return out;
}

/**
 * What the incremental render wrote that the full one would not, one line
 * each (`session s1 @fleet-agent: "…" incremental, "…" full`). Toasts and
 * notices are left out: they tell what changed since the last wake, which a
 * render with no history cannot know.
 */
export function renderDifferences(incremental: Rendered, full: Rendered): string[] {
  return differences(flatten(incremental), flatten(full));
}

function differences(a: Flat, b: Flat): string[] {
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key) ?? '';
    const y = b.get(key) ?? '';
    if (x !== y) out.push(`${key}: ${JSON.stringify(x)} incremental, ${JSON.stringify(y)} full`);
  }
  return out;
}

const FULL = { registryOnly: false, registryChanged: null } as const;

/**
 * A difference told when it holds through this many wakes in a row, spanning
 * the poll's interval at least: a file's watch speaks by the next wake, but a
 * death (a process gone, no file changed) is seen by the poll alone.
 */
export const CHECK_STREAK = 3;

/**
 * `render`, each wake also rendered by a fresh render from `fresh()` on a copy
 * of the snapshot, every file read. A difference may be a file written just
 * before the wake whose watch has not spoken yet (the full render read it, the
 * incremental one reads it at its next wake): it is told (`report`) when the
 * same difference holds through CHECK_STREAK wakes in a row over `pollMs` at
 * least (three quick tmux wakes after a process died are no miss: the poll has
 * not looked yet), or still holds once no wake came for `quietMs` (longer than
 * the poll, which finds what a watch missed). What `render` returned is
 * returned as is.
 */
export function checkedRender(render: Render, fresh: () => Render, report: (lines: string[]) => void, quietMs: number, pollMs = 0): Render {
  let wake = 0;
  let pending: NodeJS.Timeout | null = null;
  /** Each difference of the last check: the checks in a row that found it, since when, and whether it was told. */
  let streak = new Map<string, { count: number; since: number; told: boolean }>();
  const hintText = (hint: unknown) => JSON.stringify(hint, (_k, v: unknown) => (v instanceof Set ? [...v] : v));
  return async (snapshot, hint, held) => {
    if (pending) clearTimeout(pending);
    pending = null;
    const at = ++wake;
    // Flattened now: the render changes its values map at the next wake.
    const got = await render(snapshot, hint, held);
    const mine = flatten(got);
    const diff = differences(mine, flatten(await fresh()(snapshot, FULL, held)));
    const next = new Map<string, { count: number; since: number; told: boolean }>();
    const now = Date.now();
    for (const d of diff) {
      const was = streak.get(d);
      next.set(d, was ? { ...was, count: was.count + 1 } : { count: 1, since: now, told: false });
    }
    streak = next;
    const lasting = diff.filter((d) => {
      const s = streak.get(d);
      if (!s || s.told || s.count < CHECK_STREAK || now - s.since < pollMs) return false;
      s.told = true;
      return true;
    });
    if (lasting.length > 0) report([`wake ${at} (${hintText(hint)}), the same for ${CHECK_STREAK} wakes in a row or more, over ${pollMs} ms or more:`, ...lasting.map((d) => `  ${d}`)]);
    if (diff.length === 0) return got;
    pending = setTimeout(() => {
      pending = null;
      // What tmux holds now, the supervisor's writes since the read included: what a wake decides from history (a
      // turn finished unseen, its session marked) is in tmux now, where a full render reads it.
      void fresh()(snapshot, FULL, held).then((full) => {
        const still = differences(mine, flatten(full));
        if (wake !== at || still.length === 0) return;
        report([`wake ${at} (${hintText(hint)}), still after ${quietMs} ms with no wake:`, ...still.map((d) => `  ${d}`)]);
      });
    }, quietMs);
    pending.unref();
    return got;
  };
}

/** The supervisor's render, checked when `env` asks for it (CHECK_RENDER_ENV: the file the differences go to). */
export function withRenderCheck(env: NodeJS.ProcessEnv, home: string, render: Render, fresh: () => Render, pollMs: number): Render {
  const file = env[CHECK_RENDER_ENV];
  if (!file) return render;
  return checkedRender(render, fresh, (lines) => appendFileSync(file, `${home} supervise[${process.pid}] ${lines.join('\n')}\n`), pollMs + 1000, pollMs);
}
