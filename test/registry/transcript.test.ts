// A job's conversation from Claude Code's transcript, as readable lines (the dashboard's `l`).
// transcript-2.1.333-tab.jsonl: records the real Claude Code 2.1.333 wrote offline for a tab
// that parked its work (a prompt, a notice, `continued-in` naming the job); offline it writes
// no assistant record, so transcript-job.jsonl holds the assistant, tool_use and tool_result
// records in the shape Claude Code writes them online.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTranscript, jobTranscript, recordLines, transcriptHasConversation, transcriptLines } from '../../src/registry/transcript';
import { makeTempDir, type TempDir } from '../helpers/env';
import { ROOT } from '../helpers/paths';

const fixture = (name: string) => readFile(join(ROOT, 'test', 'fixtures', name), 'utf8');

describe('transcriptLines', () => {
  it("the real tab's transcript: its prompt, Claude Code's notice, the job it continued in; nothing else", async () => {
    expect(transcriptLines(await fixture('transcript-2.1.333-tab.jsonl'))).toEqual([
      '› write a haiku about tmux',
      '· Backgrounding after the current tool finishes…',
      '· continued in session 30527e22-1143-41d5-b52b-c7c1aa98e306 (a background job)',
    ]);
  });

  it("a job's conversation: prompts, the assistant's text, tool calls and the first line of their results; meta records left out", async () => {
    expect(transcriptLines(await fixture('transcript-job.jsonl'))).toEqual([
      '› fix the login redirect',
      '  and run the tests',
      "● I'll look at the redirect first.",
      '  → Read /work/app/src/login.ts',
      '  ← export function login() {',
      '  → Bash npm test -- login',
      '  ← error: 1 failing: redirects to /home expected /dashboard',
      '● One test fails: the redirect goes to /home.',
      '  I need approval to edit src/login.ts.',
    ]);
  });

  it('a torn first record (the tail read starts mid-line) and garbage are skipped; the last lines kept', () => {
    const text = `{"type":"user","mess\n${JSON.stringify({ type: 'system', content: 'a' })}\nnot json\n${JSON.stringify({ type: 'system', content: 'b' })}\n`;
    expect(transcriptLines(text)).toEqual(['· a', '· b']);
    expect(transcriptLines(text, 1)).toEqual(['· b']);
  });

  it('hostile text cannot move the cursor or retitle the terminal', () => {
    const lines = recordLines({ type: 'assistant', message: { content: [{ type: 'text', text: 'ok\u001b]2;pwned\u0007\u001b[2J done' }] } });
    expect(lines.join('')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});

// A directory of its own for each test that writes transcripts.
let d: TempDir;
beforeEach(async () => {
  d = await makeTempDir();
});
afterEach(async () => {
  await d.cleanup();
});

describe('transcriptHasConversation', () => {
  const settings = ['{"type":"mode","mode":"normal","sessionId":"s"}', '{"type":"permission-mode","permissionMode":"default","sessionId":"s"}', '{"type":"ai-title","aiTitle":"Write a sonnet about","sessionId":"s"}'];
  const cases: { name: string; text: () => Promise<string> | string; want: boolean }[] = [
    { name: 'settings records alone (a Driver killed before its first prompt was saved)', text: () => settings.join('\n') + '\n', want: false },
    { name: 'empty', text: () => '', want: false },
    { name: 'a user record', text: () => [...settings, '{"type":"user","message":{"role":"user","content":"hi"}}'].join('\n'), want: true },
    { name: 'an assistant record', text: () => '{"type":"assistant","message":{"role":"assistant","content":[]}}\n', want: true },
    { name: 'a record cut mid-write and no message', text: () => `${settings[0]}\n{"type":"user","mess`, want: false },
    { name: 'the word user elsewhere than the type', text: () => '{"type":"mode","mode":"user"}\n', want: false },
    { name: 'a real 2.1.333 transcript', text: () => fixture('transcript-2.1.333-tab.jsonl'), want: true },
    { name: 'what 2.1.333 left of a Driver killed before its first prompt was saved', text: () => fixture('transcript-2.1.333-no-message.jsonl'), want: false },
    { name: 'larger than what is read: taken to hold one', text: () => `${settings[0]}\n`.repeat(8000), want: true },
  ];
  it.each(cases)('$name: $want', async ({ text, want }) => {
    const file = join(d.path, 's.jsonl');
    await writeFile(file, await text());
    expect(transcriptHasConversation(file)).toBe(want);
  });
});

describe('jobTranscript', () => {

  it("the job's own transcript, else the tab's it forked from; a link is not followed; none: null", async () => {
    const projects = join(d.path, 'projects');
    await mkdir(join(projects, '-work-app'), { recursive: true });
    const rows = [
      { sessionId: 'e9e4ae8e-ce05-4a4a-8b8b-0123456789ab', jobId: 'e9e4ae8e', kind: 'bg' as const },
      { sessionId: 'bcc0d7aa-fc05-4173-b7b5-1a7397a3f8e8', parkedJobId: 'e9e4ae8e', kind: 'interactive' as const },
    ];
    expect(jobTranscript(projects, rows, 'e9e4ae8e')).toBeNull();
    await writeFile(join(projects, '-work-app', 'bcc0d7aa-fc05-4173-b7b5-1a7397a3f8e8.jsonl'), await fixture('transcript-2.1.333-tab.jsonl'));
    expect(jobTranscript(projects, rows, 'e9e4ae8e')).toMatchObject({ whose: 'tab', cut: false, lines: expect.arrayContaining(['› write a haiku about tmux']) });
    await writeFile(join(projects, '-work-app', 'e9e4ae8e-ce05-4a4a-8b8b-0123456789ab.jsonl'), await fixture('transcript-job.jsonl'));
    expect(jobTranscript(projects, rows, 'e9e4ae8e')).toMatchObject({ whose: 'job', lines: expect.arrayContaining(['  → Bash npm test -- login']) });
    // A link in place of a transcript is never followed.
    await mkdir(join(projects, '-other'));
    await symlink('/etc/passwd', join(projects, '-other', 'link-sid.jsonl'));
    expect(findTranscript(projects, 'link-sid')).toBeNull();
    expect(findTranscript(projects, '../../etc/passwd')).toBeNull();
  });
});
