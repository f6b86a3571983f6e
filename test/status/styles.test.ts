// The default badge styles (scripts/option-defaults.json, @fleet-style-*)
// against the status bars they are drawn on: tmux's own default status style,
// read from a real server started with no configuration, and dark themes.
// Terminals draw the 16 named colours from their own palette, so each check
// holds for several common ones; colourN and #rrggbb are fixed.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionDefault } from '../../src/options';
import { STYLE_KEYS, type StyleKey } from '../../src/status/segments';
import { startServer, type TestServer } from '../helpers/tmux-server';

type Rgb = [number, number, number];
const hex = (h: string): Rgb => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;

/** black red green yellow blue magenta cyan white, then the bright eight. */
const PALETTES: Record<string, string[]> = {
  xterm: ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5', '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'],
  tango: ['#2e3436', '#cc0000', '#4e9a06', '#c4a000', '#3465a4', '#75507b', '#06989a', '#d3d7cf', '#555753', '#ef2929', '#8ae234', '#fce94f', '#729fcf', '#ad7fa8', '#34e2e2', '#eeeeec'],
  // The one docs/*.png are drawn with (scripts/ansi-svg.mjs).
  docs: ['#1d1f21', '#cc6666', '#8fbf5a', '#e5c07b', '#6a9fd4', '#b294bb', '#56b6c2', '#c5c8c6', '#5c6370', '#e06c75', '#a8d977', '#f0d58a', '#81a2be', '#c678dd', '#8abeb7', '#ffffff'],
};
const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

function colour(name: string, palette: string[]): Rgb {
  const named = NAMES.indexOf(name.replace(/^bright/, ''));
  if (named >= 0) return hex(palette[named + (name.startsWith('bright') ? 8 : 0)]!);
  if (name.startsWith('#')) return hex(name);
  const n = Number(/^colou?r(\d+)$/.exec(name)?.[1]);
  if (!Number.isInteger(n)) throw new Error(`not a colour: ${name}`);
  if (n < 16) return hex(palette[n]!);
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    return [v[Math.floor((n - 16) / 36)]!, v[Math.floor((n - 16) / 6) % 6]!, v[(n - 16) % 6]!];
  }
  const g = 8 + (n - 232) * 10;
  return [g, g, g];
}

/** fg and bg of a tmux style (`fg=black,bg=green,bold`). */
function parts(style: string): { fg: string; bg: string } {
  const get = (k: string) => new RegExp(`(?:^|,)${k}=([^,]+)`).exec(style)?.[1];
  return { fg: get('fg') ?? 'default', bg: get('bg') ?? 'default' };
}

/** WCAG relative luminance and contrast ratio. */
function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}
function contrast(a: Rgb, b: Rgb): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

const style = (k: StyleKey) => parts(optionDefault(`@fleet-style-${k}`));

let server: TestServer;
let tmuxDefault: { fg: string; bg: string };
beforeAll(async () => {
  server = await startServer();
  tmuxDefault = parts((await server.run(['show-options', '-gv', 'status-style'])).trim());
});
afterAll(async () => {
  await server?.kill();
});

/** The bars a badge is drawn on: tmux's default (read above) and two dark themes. */
const bars = () => ({ "tmux's default": tmuxDefault.bg, 'dark (colour235)': 'colour235', 'dark (black)': 'black' });

describe('the default badge styles', () => {
  it("tmux's own default status bar is green (what the owner badge must stand out from)", async () => {
    expect(tmuxDefault.bg).toBe('green');
    expect((await execa('tmux', ['-V'])).stdout).toMatch(/^tmux 3\./);
  });

  it.each(Object.keys(PALETTES))('● owner stands out from every bar, and its text from it (%s palette)', (p) => {
    const palette = PALETTES[p]!;
    const owner = style('owner');
    // No one colour contrasts 3:1 with both a mid green bar and a black one: the badge is a dark green told from both
    // (1.6 to 3.7 here), and its bold white text carries the contrast.
    for (const [name, bar] of Object.entries(bars())) {
      expect(contrast(colour(owner.bg, palette), colour(bar, palette)), `owner badge on the ${name} bar`).toBeGreaterThanOrEqual(1.5);
    }
    expect(contrast(colour(owner.fg, palette), colour(owner.bg, palette)), 'owner text').toBeGreaterThanOrEqual(4.5);
  });

  it.each(Object.keys(PALETTES))('◌ pending does not share the colour of ! waiting (%s palette)', (p) => {
    const palette = PALETTES[p]!;
    expect(style('pending').bg).not.toBe(style('waiting').bg);
    expect(contrast(colour(style('pending').bg, palette), colour(style('waiting').bg, palette))).toBeGreaterThanOrEqual(2);
    expect(contrast(colour(style('pending').fg, palette), colour(style('pending').bg, palette)), 'pending text').toBeGreaterThanOrEqual(4.5);
  });

  it('the verdict badges are four different colours', () => {
    const verdicts = STYLE_KEYS.filter((k) => ['owner', 'other', 'pending', 'unknown'].includes(k)).map((k) => style(k).bg);
    expect(new Set(verdicts).size).toBe(4);
  });
});
