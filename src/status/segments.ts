// The three status segments, as text. Pure. Data (slugs, session ids, job ids,
// agent states) has every '#' doubled; markup comes only from the user's
// @fleet-style-* options (see scripts/variables.sh).
import type { Decision } from '../ownership/judge';
import { renderAgent, renderHop, type SessionHop } from '../registry/hop';
import { sid8 } from '../registry/hop';
import { escapeFormat } from '../tmux/args';

export const STYLE_KEYS = [
  'owner',
  'other',
  'pending',
  'unknown',
  'hop',
  'busy',
  'idle',
  'waiting',
] as const;
export type StyleKey = (typeof STYLE_KEYS)[number];

export interface SegmentStyle {
  icon: string;
  style: string;
}
export type Styles = Record<StyleKey, SegmentStyle>;

/** The defaults of scripts/variables.sh, used when an option is unset (plugin not loaded). */
export const DEFAULT_STYLES: Styles = {
  owner: { icon: '●', style: 'fg=green' },
  other: { icon: '▲', style: 'fg=red,bold' },
  pending: { icon: '◌', style: 'fg=yellow' },
  unknown: { icon: '?', style: 'fg=magenta' },
  hop: { icon: '↪', style: 'fg=cyan' },
  busy: { icon: '⚙', style: 'fg=blue' },
  idle: { icon: '·', style: 'fg=colour245' },
  waiting: { icon: '!', style: 'fg=black,bg=yellow,bold' },
};

/** The tmux formats that read the style options (global, or a session's own). */
export function styleFormats(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of STYLE_KEYS) {
    out[`icon-${k}`] = `#{@fleet-icon-${k}}`;
    out[`style-${k}`] = `#{@fleet-style-${k}}`;
  }
  return out;
}

/**
 * Styles from option values read with styleFormats(). A format read cannot
 * tell an unset option from an empty one, so empty takes the default; an icon
 * of white space only draws the text alone.
 */
export function stylesFrom(values: Record<string, string | undefined>): Styles {
  const out = {} as Styles;
  for (const k of STYLE_KEYS) {
    const icon = values[`icon-${k}`] || DEFAULT_STYLES[k].icon;
    const style = values[`style-${k}`] || DEFAULT_STYLES[k].style;
    out[k] = { icon: icon.trim(), style: style.trim() };
  }
  return out;
}

/** `#[style]icon text#[default]`; the text is escaped, a ']' in a style cannot close the markup early. */
export function segment(s: SegmentStyle, text: string): string {
  if (text === '') return '';
  const style = s.style.replace(/[\]#]/g, '');
  const body = s.icon ? `${escapeFormat(s.icon)} ${escapeFormat(text)}` : escapeFormat(text);
  return style ? `#[${style}]${body}#[default]` : body;
}

export type OwnerState = 'owner' | 'other' | 'pending' | 'unknown';

/** What the verdict means for the session it was asked for. */
export function ownerState(d: Decision): OwnerState {
  if (d.verdict === 0) return 'owner';
  if (d.verdict === 9) return 'other';
  return d.code === 'booting' ? 'pending' : 'unknown';
}

/** Plain text of the owner segment: `owner fix-login`, `fix-login: owner 10e378ef live`, `fix-login pending`, `fix-login ?`. */
export function ownerText(slug: string, d: Decision): string {
  switch (ownerState(d)) {
    case 'owner':
      return `owner ${slug}`;
    case 'other':
      return `${slug}: owner ${sid8(d.owner ?? '')} ${d.liveness ?? 'unknown'}`;
    case 'pending':
      return `${slug} pending`;
    default:
      return `${slug} cannot tell`;
  }
}

export function ownerSegment(slug: string, d: Decision, styles: Styles): string {
  return segment(styles[ownerState(d)], ownerText(slug, d));
}

export function hopSegment(hop: SessionHop | undefined, styles: Styles): string {
  return segment(styles.hop, renderHop(hop));
}

export function agentSegment(hop: SessionHop | undefined, styles: Styles): string {
  const text = renderAgent(hop?.agent);
  if (text === '') return '';
  const key: StyleKey = text.startsWith('waiting') ? 'waiting' : text === 'busy' ? 'busy' : 'idle';
  return segment(styles[key], text);
}
