import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth, drawnText, fitCheck, readStatusFit, statusFit, type StatusSide } from '../../src/status/fit';
import { startServer, type TestServer } from '../helpers/tmux-server';

// Segment values as the supervisor writes them (badges, '#' doubled).
const OWNER = '#[fg=black,bg=green] ● owner migrate-db #[default]';
const HOP = '#[fg=black,bg=cyan] ↪ 476f → e9e4 #[default]';
const AGENT = '#[fg=black,bg=yellow,bold] ! waiting: approve Bash #[default]';
const OTHER = '#[fg=white,bg=red,bold] ▲ fix##1: owner 10e378ef live #[default]';
const README_RIGHT = '#{@fleet-owner} #{@fleet-hop} #{@fleet-agent} %H:%M';

/** The side as tmux expands it: the segment reads replaced by their values, the clock by a fixed time. */
function side(option: StatusSide['option'], format: string, length: number, values: Record<string, string>): StatusSide {
  let expanded = format.replace('%H:%M', '12:34');
  for (const [read, value] of Object.entries(values)) expanded = expanded.replace(read, value);
  return { option, format, length, expanded };
}

const values = (owner: string, hop: string, agent: string) => ({ '#{@fleet-owner}': owner, '#{@fleet-hop}': hop, '#{@fleet-agent}': agent });

describe('drawnText and displayWidth', () => {
  it.each([
    ['#[fg=red]abc#[default]', 'abc', 3],
    ['a##b', 'a#b', 3],
    ['#[bg=green] ● owner x #[default]', ' ● owner x ', 11],
    ['↪ 10e3 → e9e4', '↪ 10e3 → e9e4', 13],
    ['日本', '日本', 4],
    ['e\u0301', 'e\u0301', 1],
  ])('%j draws %j in %d columns', (expanded, drawn, width) => {
    expect(drawnText(expanded)).toBe(drawn);
    expect(displayWidth(drawnText(expanded))).toBe(width);
  });
});

describe('statusFit', () => {
  it.each([
    {
      what: "the README's status-right at tmux's default 40: the agent segment cut",
      side: side('status-right', README_RIGHT, 40, values(OWNER, HOP, AGENT)),
      values: values(OWNER, HOP, AGENT),
      cut: ['#{@fleet-agent}'],
      width: 68,
    },
    {
      what: 'the same at 100: nothing cut',
      side: side('status-right', README_RIGHT, 100, values(OWNER, HOP, AGENT)),
      values: values(OWNER, HOP, AGENT),
      cut: [],
      width: 68,
    },
    {
      what: 'only the clock past the length: no segment cut',
      side: side('status-right', README_RIGHT, 62, values(OWNER, HOP, AGENT)),
      values: values(OWNER, HOP, AGENT),
      cut: [],
      width: 68,
    },
    {
      what: 'empty segments are never cut',
      side: side('status-right', README_RIGHT, 40, values(OWNER, '', '')),
      values: values(OWNER, '', ''),
      cut: [],
      width: 28,
    },
    {
      what: "status-left at tmux's default 10 with the session name first",
      side: side('status-left', '[main] #{@fleet-owner}', 10, values(OTHER, '', '')),
      values: values(OTHER, '', ''),
      cut: ['#{@fleet-owner}'],
      width: 37,
    },
    {
      what: 'a segment that ends exactly at the length fits',
      side: side('status-right', '#{@fleet-owner}', 20, values(OWNER, '', '')),
      values: values(OWNER, '', ''),
      cut: [],
      width: 20,
    },
    {
      what: 'one column short: cut',
      side: side('status-right', '#{@fleet-owner}', 19, values(OWNER, '', '')),
      values: values(OWNER, '', ''),
      cut: ['#{@fleet-owner}'],
      width: 20,
    },
    {
      what: 'the same text twice (a token used twice): each found after the previous',
      side: side('status-right', '#{@fleet-agent} #{@fleet-owner}', 10, values(' idle ', '', ' idle ')),
      values: values(' idle ', '', ' idle '),
      cut: ['#{@fleet-owner}'],
      width: 13,
    },
  ])('$what', ({ side: s, values: v, cut, width }) => {
    const fit = statusFit(s, v);
    expect(fit?.cut).toEqual(cut);
    expect(fit?.width).toBe(width);
  });

  it('a side that reads no segment is not looked at', () => {
    expect(statusFit({ option: 'status-right', format: '%H:%M', length: 40, expanded: '12:34' }, values(OWNER, HOP, AGENT))).toBeNull();
  });

  it('suggests at least the room the plugin gives, and more when the text needs it', () => {
    expect(statusFit(side('status-right', README_RIGHT, 40, values(OWNER, HOP, AGENT)), values(OWNER, HOP, AGENT))?.suggested).toBe(100);
    const long = '#[bg=red] ' + 'x'.repeat(117) + ' #[default]';
    expect(statusFit(side('status-right', '#{@fleet-owner}', 40, values(long, '', '')), values(long, '', ''))?.suggested).toBe(120);
    expect(statusFit(side('status-left', '#{@fleet-owner}', 10, values(OWNER, '', '')), values(OWNER, '', ''))?.suggested).toBe(60);
  });
});

describe('fitCheck', () => {
  it('names the cut segments, the length and the fix', () => {
    const fit = statusFit(side('status-right', README_RIGHT, 40, values(OWNER, HOP, AGENT)), values(OWNER, HOP, AGENT))!;
    expect(fitCheck(fit)).toEqual({
      id: 'status-right',
      state: 'fail',
      text: 'status-right: cut at 40 columns (it draws 68; the agent segment is cut)',
      fix: 'set -g status-right-length 100',
    });
  });

  it('says when the segments fit', () => {
    const fit = statusFit(side('status-right', README_RIGHT, 100, values(OWNER, HOP, AGENT)), values(OWNER, HOP, AGENT))!;
    expect(fitCheck(fit)).toEqual({ id: 'status-right', state: 'ok', text: 'status-right: the fleet segments fit in 100 columns (68 used)' });
  });
});

describe('readStatusFit on a real server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await server.newSession('work');
  });
  afterAll(async () => {
    await server?.kill();
  });

  it("finds the README's status-right cut at tmux's default, and not once it is raised", async () => {
    await server.tmux.chain([
      ['set-option', '-g', 'status-right', README_RIGHT],
      ['set-option', '-t', '=work:', '@fleet-owner', OWNER],
      ['set-option', '-t', '=work:', '@fleet-hop', HOP],
      ['set-option', '-t', '=work:', '@fleet-agent', AGENT],
    ]);
    const cut = await readStatusFit(server.tmux, 'work');
    expect(cut).toEqual([{ option: 'status-right', length: 40, width: 68, cut: ['#{@fleet-agent}'], suggested: 100 }]);
    await server.run(['set-option', '-g', 'status-right-length', '100']);
    expect((await readStatusFit(server.tmux, 'work'))?.[0]?.cut).toEqual([]);
  });

  it('a session that does not exist reads as nothing', async () => {
    expect(await readStatusFit(server.tmux, 'nosuch')).toBeNull();
  });
});
