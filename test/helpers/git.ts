// git for tests: a fixed identity and no user or system config.
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
