// git for tests: a fixed identity and no user or system config.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const r = await execa('git', ['-C', cwd, ...args], { env: GIT_ENV });
  return String(r.stdout);
}

/** A new repository at `dir` (created) on branch main with one commit of one file. */
export async function initRepo(dir: string, file: string, content: string, message: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, file), content);
  await git(dir, 'add', file);
  await git(dir, 'commit', '-qm', message);
}
