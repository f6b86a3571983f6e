// Does the status line show the fleet segments whole? tmux keeps only the
// first status-left-length / status-right-length columns of each side (10 and
// 40 by default; style markup is not counted, `##` draws one `#`). The plugin
// raises a length still at tmux's default when its side reads a segment
// (tmux-plugin.tmux, fit_status_lengths); `doctor` says when one is cut anyway.
// Pure, except readStatusFit's one tmux call.
import { sessionTarget } from '../tmux/args';
import type { Tmux } from '../tmux/client';

export type StatusSideName = 'status-left' | 'status-right';
export const SEGMENT_READS = ['#{@fleet-owner}', '#{@fleet-hop}', '#{@fleet-agent}'] as const;
export type SegmentRead = (typeof SEGMENT_READS)[number];

/** The lengths the plugin gives a side at tmux's default, and the least `doctor` suggests. */
export const ROOM: Record<StatusSideName, number> = { 'status-left': 60, 'status-right': 100 };

export interface StatusSide {
  option: StatusSideName;
  /** The option's value as set (`#{@fleet-owner} %H:%M`). */
  format: string;
  /** Its length option. */
  length: number;
  /** The value expanded for one session (`#{T:status-right}`), markup still in. */
  expanded: string;
}

export interface StatusFit {
  option: StatusSideName;
  length: number;
  /** Columns the side would draw uncut. */
  width: number;
  /** The segments shown now that lose columns, in the order they are drawn. */
  cut: SegmentRead[];
  /** A length that holds what is shown now, and at least ROOM. */
  suggested: number;
}

/** What tmux draws of an expanded format: without `#[...]` markup, `##` as `#`. */
export function drawnText(expanded: string): string {
  return expanded.replace(/#\[[^\]]*\]|##/g, (m) => (m === '##' ? '#' : ''));
}

/** Terminal columns of a text: wide (East Asian, emoji) characters take two, combining marks none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) continue;
    const wide =
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1f300 && cp <= 0x1f64f) ||
      (cp >= 0x1f900 && cp <= 0x1f9ff) ||
      (cp >= 0x20000 && cp <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

/**
 * How one side fits, given the segment values of the session it was expanded
 * for; null when the side reads no segment. A segment is cut when it ends past
 * the length (tmux keeps the first columns). A segment that cannot be found
 * in the expanded text (a conditional hid it) counts as cut when the side is.
 */
export function statusFit(side: StatusSide, values: Readonly<Record<SegmentRead, string>>): StatusFit | null {
  const reads = SEGMENT_READS.filter((r) => side.format.includes(r)).sort((a, b) => side.format.indexOf(a) - side.format.indexOf(b));
  if (reads.length === 0) return null;
  const drawn = drawnText(side.expanded);
  const width = displayWidth(drawn);
  const cut: SegmentRead[] = [];
  let from = 0;
  for (const read of reads) {
    const text = drawnText(values[read]);
    if (text === '') continue;
    const at = drawn.indexOf(text, from);
    if (at < 0) {
      if (width > side.length) cut.push(read);
      continue;
    }
    from = at + text.length;
    if (displayWidth(drawn.slice(0, from)) > side.length) cut.push(read);
  }
  return { option: side.option, length: side.length, width, cut, suggested: Math.max(ROOM[side.option], Math.ceil(width / 10) * 10) };
}

/** The doctor line of one side. */
export function fitCheck(fit: StatusFit): { id: string; state: 'ok' | 'fail'; text: string; fix?: string } {
  if (fit.cut.length === 0) return { id: fit.option, state: 'ok', text: `${fit.option}: the fleet segments fit in ${fit.length} columns (${fit.width} used)` };
  // '#{@fleet-owner}' -> 'owner'
  const names = fit.cut.map((r) => r.slice('#{@fleet-'.length, -1));
  const which = names.length === 1 ? `the ${names[0]} segment is` : `the ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]} segments are`;
  return {
    id: fit.option,
    state: 'fail',
    text: `${fit.option}: cut at ${fit.length} columns (it draws ${fit.width}; ${which} cut)`,
    fix: `set -g ${fit.option}-length ${fit.suggested}`,
  };
}

const FIELDS = [
  '#{status-left}',
  '#{status-left-length}',
  '#{T:status-left}',
  '#{status-right}',
  '#{status-right-length}',
  '#{T:status-right}',
  ...SEGMENT_READS,
];

/** One tmux call: both sides as the session draws them, and its segment values. Null when the session cannot be read. */
export async function readStatusFit(tmux: Pick<Tmux, 'tryChain'>, session: string): Promise<StatusFit[] | null> {
  const target = sessionTarget(session);
  // One command a field, so a value holding a tab cannot shift the others;
  // has-session first, as display-message falls back to another session.
  const r = await tmux.tryChain([['has-session', '-t', target], ...FIELDS.map((f) => ['display-message', '-p', '-t', target, f])]);
  const lines = r.stdout.replace(/\n$/, '').split('\n');
  if (r.exitCode !== 0 || lines.length !== FIELDS.length) return null;
  const [leftFormat = '', leftLength = '', leftExpanded = '', rightFormat = '', rightLength = '', rightExpanded = '', owner = '', hop = '', agent = ''] = lines;
  const values = { '#{@fleet-owner}': owner, '#{@fleet-hop}': hop, '#{@fleet-agent}': agent };
  const sides: StatusSide[] = [
    { option: 'status-left', format: leftFormat, length: Number(leftLength), expanded: leftExpanded },
    { option: 'status-right', format: rightFormat, length: Number(rightLength), expanded: rightExpanded },
  ];
  return sides.map((s) => statusFit(s, values)).filter((f): f is StatusFit => f !== null);
}

/** The doctor lines for a session's status line: one per side that reads a segment. */
export async function statusFitChecks(tmux: Pick<Tmux, 'tryChain'>, session: string): Promise<ReturnType<typeof fitCheck>[]> {
  return ((await readStatusFit(tmux, session)) ?? []).map(fitCheck);
}
