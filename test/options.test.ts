import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intervalMs, messageTimeMs, optionDefault, optionValue } from '../src/options';
import { stylesFrom } from '../src/status/segments';
import { ROOT } from './helpers/paths';

const table = JSON.parse(readFileSync(join(ROOT, 'scripts', 'option-defaults.json'), 'utf8')) as Record<string, string>;

describe('the option table', () => {
  it('is the one the helper reads: every name and default', () => {
    for (const [name, value] of Object.entries(table)) expect(optionDefault(name as never)).toBe(value);
    expect(optionDefault('@fleet-session-prefix')).toBe('op-');
  });

  it.each([
    ['@fleet-agent-cmd', '', 'claude'],
    ['@fleet-agent-cmd', 'codex --yolo', 'codex --yolo'],
    ['@fleet-session-prefix', undefined, 'op-'],
  ] as const)('%s read as %j is %j', (name, read, value) => {
    expect(optionValue(name, read)).toBe(value);
  });

  it.each([
    ['', 2000],
    ['5', 5000],
    ['0.5', 500],
    ['0.1', 250],
    ['0', 2000],
    ['often', 2000],
  ])('@fleet-interval %j polls every %d ms', (read, ms) => {
    expect(intervalMs(read)).toBe(ms);
  });

  it.each([
    ['', 5000],
    ['1500', 1500],
    ['0', 0],
    ['1.5', 5000],
  ])('@fleet-message-time %j shows a message for %d ms', (read, ms) => {
    expect(messageTimeMs(read)).toBe(ms);
  });

  it('styles: unset takes the default, a single space draws none, a value of its own is kept', () => {
    const styles = stylesFrom({ 'icon-owner': '', 'style-owner': undefined, 'icon-other': ' ', 'style-other': ' ', 'icon-hop': '>>' });
    expect(styles.owner).toEqual({ icon: table['@fleet-icon-owner'], style: table['@fleet-style-owner'] });
    expect(styles.other).toEqual({ icon: '', style: '' });
    expect(styles.hop).toEqual({ icon: '>>', style: table['@fleet-style-hop'] });
  });
});
