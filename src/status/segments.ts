// The three status segments, as text. Pure. Data (slugs, session ids, job ids,
// agent states) has every '#' doubled; markup comes only from the user's
// @fleet-icon-* and @fleet-style-* options (defaults: scripts/option-defaults.json).
import type { AgentKind } from '../agents/kind';
import { ownerName, type Decision } from '../ownership/judge';
import { optionValue } from '../options';
import { agentWaits, type AgentState, type SessionHop } from '../registry/hop';
import { renderAgent, renderHop } from './hop-text';
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
  'done',
] as const;
export type StyleKey = (typeof STYLE_KEYS)[number];

export interface SegmentStyle {
  icon: string;
  style: string;
}
export type Styles = Record<StyleKey, SegmentStyle>;

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
 * Styles from option values read with styleFormats(). An unset (or empty)
 * option takes its default from the one table (src/options.ts); a single
 * space draws no icon, or no style.
 */
export function stylesFrom(values: Record<string, string | undefined>): Styles {
  const out = {} as Styles;
  for (const k of STYLE_KEYS) {
    out[k] = {
      icon: optionValue(`@fleet-icon-${k}`, values[`icon-${k}`]).trim(),
      style: optionValue(`@fleet-style-${k}`, values[`style-${k}`]).trim(),
    };
  }
  return out;
}

/** A status segment needs tens of characters, never kilobytes: longer text is cut here, before any tmux write. */
export const MAX_SEGMENT_CHARS = 120;

/** Text cut to `max` characters, the last one an ellipsis. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `#[style]icon text#[default]`; the text is cut and escaped, a ']' in a style cannot close the markup early. */
export function segment(s: SegmentStyle, full: string): string {
  const text = shorten(full, MAX_SEGMENT_CHARS);
  if (text === '') return '';
  const style = s.style.replace(/[\]#]/g, '');
  const body = s.icon ? `${escapeFormat(s.icon)} ${escapeFormat(text)}` : escapeFormat(text);
  // A badge: a space inside each edge of its background.
  return style ? `#[${style}] ${body} #[default]` : body;
}

/**
 * The short form of a segment, for a narrow client (docs/status.md#narrow-clients):
 * its badge with the icon alone; '' when there is nothing to show, or no icon.
 */
export function iconOnly(s: SegmentStyle, full: string): string {
  if (full === '' || s.icon === '') return '';
  const style = s.style.replace(/[\]#]/g, '');
  return style ? `#[${style}] ${escapeFormat(s.icon)} #[default]` : escapeFormat(s.icon);
}

export type OwnerState = 'owner' | 'other' | 'pending' | 'unknown';

/** What the verdict means for the session it was asked for. */
export function ownerState(d: Decision): OwnerState {
  if (d.verdict === 0) return 'owner';
  if (d.verdict === 9) return 'other';
  return d.code === 'booting' || d.code === 'spawning' ? 'pending' : 'unknown';
}

/**
 * Plain text of the owner segment: `owner fix-login`, `fix-login: owner rev (10e378ef) live`
 * (`owner 10e378ef live` when no session carries the owner's stamp), `fix-login pending`, `fix-login cannot tell`.
 */
export function ownerText(slug: string, d: Decision): string {
  switch (ownerState(d)) {
    case 'owner':
      return `owner ${slug}`;
    case 'other':
      return `${slug}: owner ${ownerName(d)} ${d.liveness ?? 'unknown'}`;
    case 'pending':
      return `${slug} pending`;
    default:
      return `${slug} cannot tell`;
  }
}

/**
 * `agentGone`: the session's own stamp owns the task, but the stamped agent no
 * longer runs in its panes. `unprovable`: the agent under the panes cannot be
 * tied to them (Codex's daemon mode), so a spawn that waits for its stamp is
 * not pending but cannot be told.
 */
export function ownerSegment(slug: string, d: Decision, styles: Styles, agentGone = false, unprovable = false): string {
  if (agentGone && d.verdict === 0) return segment(styles.unknown, `? ${slug}: agent gone`);
  if (unprovable && ownerState(d) === 'pending') return segment(styles.unknown, `${slug} cannot tell`);
  return segment(styles[ownerState(d)], ownerText(slug, d));
}

/**
 * An agent that writes no registry row (Codex CLI, Gemini CLI) whose hooks and
 * title have told nothing yet: which agent runs, as its process shows it;
 * nothing guessed of its state.
 */
export function agentKindSegment(agent: AgentKind | null, styles: Styles): string {
  return agent === 'codex' || agent === 'gemini' ? segment(styles.idle, agent) : '';
}

export function hopSegment(hop: SessionHop | undefined, styles: Styles): string {
  return segment(styles.hop, renderHop(hop));
}

/** The hop on a narrow client: `↪` without the ids. */
export function hopShortSegment(hop: SessionHop | undefined, styles: Styles): string {
  return iconOnly(styles.hop, renderHop(hop));
}

/** The longest `needs` sentence the status line shows; `prefix O` and the dashboard show it whole. */
export const AGENT_SEGMENT_MAX = 40;

/** @fleet-agent: the agent's state (SessionView.state: the attached row's, or what a Codex CLI or Gemini CLI said). */
export function agentSegment(state: AgentState | null | undefined, styles: Styles, short = false): string {
  const text = renderAgent(state, AGENT_SEGMENT_MAX);
  if (text === '') return '';
  const key: StyleKey = agentWaits(state) ? 'waiting' : text === 'busy' ? 'busy' : 'idle';
  return short ? iconOnly(styles[key], text) : segment(styles[key], text);
}

/** Plain text of the attention segment's wait part: `2 waiting`, '' when no agent waits. */
export function attentionText(waiting: number): string {
  return waiting > 0 ? `${waiting} waiting` : '';
}

/**
 * @fleet-attention: how many agents of the fleet wait for the user, in the
 * waiting style (`! 2 waiting`), then how many sessions finished while nobody
 * looked, in the done style (`✓ 1 done`, docs/notify.md#unseen).
 */
export function attentionSegment(waiting: number, styles: Styles, unseen = 0): string {
  const wait = segment(styles.waiting, attentionText(waiting));
  const done = segment(styles.done, unseen > 0 ? `${unseen} done` : '');
  return wait && done ? `${wait} ${done}` : wait || done;
}
