// The design lives in the repository: every docs link in the README, the docs
// and the code's comments names a file that exists and a heading it has (as
// GitHub makes anchors); nothing cites a contract that is not in the repository;
// docs/cli.md's reference is what the command table makes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/paths';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (ext.test(name)) out.push(p);
  }
  return out;
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] as string)));
}

const sources = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs'), /\.md$/), ...files(join(ROOT, 'src'), /\.ts$/), ...files(join(ROOT, 'scripts'), /\.(sh|mjs)$/)];

describe('docs links', () => {
  it('anchorOf makes GitHub anchors', () => {
    expect(anchorOf('The judge')).toBe('the-judge');
    expect(anchorOf('Facts measured on tmux 3.3a')).toBe('facts-measured-on-tmux-33a');
    expect(anchorOf('/clear')).toBe('clear');
    expect(anchorOf('What Claude Code writes')).toBe('what-claude-code-writes');
  });

  it('every docs/<file>.md#<heading> named anywhere exists', () => {
    const broken: string[] = [];
    for (const src of sources) {
      const text = readFileSync(src, 'utf8');
      const inDocs = src.includes(`${join(ROOT, 'docs')}/`);
      // Markdown links ([x](hop.md#follow), [x](docs/hop.md)) and plain mentions in comments (docs/hop.md#follow).
      const refs = [...text.matchAll(/\]\(([^)\s]+\.md)(#[^)\s]+)?\)/g)].map((m) => [m[1] as string, m[2]] as const);
      refs.push(...[...text.matchAll(/(?<![\w/(])docs\/([\w.-]+\.md)(#[\w-]+)?/g)].map((m) => [`docs/${m[1]}`, m[2]] as const));
      for (const [path, hash] of refs) {
        if (/^https?:/.test(path)) continue;
        const target = path.startsWith('docs/') || !inDocs ? join(ROOT, path) : join(ROOT, 'docs', path);
        let anchors: Set<string>;
        try {
          anchors = anchorsOf(target);
        } catch {
          broken.push(`${relative(ROOT, src)}: ${path} does not exist`);
          continue;
        }
        if (hash && !anchors.has(hash.slice(1))) broken.push(`${relative(ROOT, src)}: ${path}${hash} names no heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('nothing cites a contract outside the repository, and the licence the README names is there', () => {
    for (const src of sources) expect(readFileSync(src, 'utf8'), relative(ROOT, src)).not.toMatch(/SPEC(\.md| section)|shared\/seeds/);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('[LICENSE](LICENSE)');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });
});

describe("the README's commands", () => {
  it('every $(...) it suggests runs where only node and a POSIX shell are (uuidgen is missing on many machines)', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, rmSync, symlinkSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    // Shell blocks and inline code spans.
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```|`([^`\n]+)`/g)].map((m) => (m[1] ?? m[2]) as string);
    const substitutions = blocks.flatMap((b) => [...b.matchAll(/\$\(((?:[^()]|\([^()]*\))+)\)/g)].map((m) => m[1] as string));
    expect(substitutions.length).toBeGreaterThan(0);
    const bin = mkdtempSync(join(tmpdir(), 'fleet-test-bin-'));
    try {
      symlinkSync(process.execPath, join(bin, 'node'));
      for (const cmd of substitutions) {
        const out = execFileSync('/bin/sh', ['-c', cmd], { env: { PATH: bin }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        expect(out.trim(), cmd).not.toBe('');
      }
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe("docs/cli.md's reference", () => {
  const check = (file?: string) =>
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'cli-reference.mjs'), '--check', ...(file ? [file] : [])], { cwd: ROOT, encoding: 'utf8' });

  it('is what scripts/cli-reference.mjs makes from src/cli/spec.ts (else: npm run docs)', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the check fails on a reference that differs from the table, naming the line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-docs-'));
    try {
      const doc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
      const lines = doc.split('\n');
      const at = lines.indexOf('### attention');
      expect(at).toBeGreaterThan(0);
      const file = join(dir, 'cli.md');
      writeFileSync(file, [...lines.slice(0, at), '### attention (gone from the table)', ...lines.slice(at + 1)].join('\n'));
      const r = check(file);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`${file}: the reference differs from src/cli/spec.ts from line ${at + 1} (run npm run docs)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
