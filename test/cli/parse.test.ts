// The one parser of every command's arguments (src/cli/parse.ts): the forms it
// takes, and the one-line usage errors users see.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors';
import { parseCommandArgs } from '../../src/cli/parse';
import { findCommand } from '../../src/cli/spec';

const parse = (argv: string[]) => parseCommandArgs(findCommand(argv[0])!, argv);

describe('parseCommandArgs', () => {
  it.each([
    ['a positional', ['owner', 'px'], { slug: 'px' }],
    ['--opt value and --opt=value', ['spawn', 'px', '--cmd', 'codex', '--base=main'], { slug: 'px', cmd: 'codex', base: 'main' }],
    ['a kebab option as camel case', ['spawn', 'px', '--prompt-file', '/p'], { slug: 'px', promptFile: '/p' }],
    ['a flag, --no-flag, --flag=false', ['spawn', 'px', '--worktree', '--no-replace', '--resume=false'], { slug: 'px', worktree: true, replace: false, resume: false }],
    ['a repeated array option', ['spawn', 'px', '--accept', 'a', '--accept=b'], { slug: 'px', accept: ['a', 'b'] }],
    ['a value that starts with a dash', ['spawn', 'px', '--prompt', '-v please'], { slug: 'px', prompt: '-v please' }],
    ['global options before the command', ['--home', '/h', '--json', 'tasks'], { home: '/h', json: true }],
    ['`--` ends the options', ['follow', '--', '--watch'], { sid: '--watch' }],
    ['an optional positional left out', ['follow', '--watch'], { watch: true }],
    ['a choice', ['hooks', 'status'], { action: 'status' }],
  ])('%s', (_what, argv, args) => {
    const spec = findCommand(argv.find((a) => findCommand(a)))!;
    expect(parseCommandArgs(spec, argv)).toEqual(args);
  });

  it.each([
    ['an unknown option', ['sweep', '--bogus'], 'sweep: unknown option --bogus (see tmux-fleet sweep --help)'],
    ['an unknown option with a value', ['sweep', '--bogus=1'], 'sweep: unknown option --bogus (see tmux-fleet sweep --help)'],
    ['a short option', ['sweep', '-z'], 'sweep: unknown option -z (see tmux-fleet sweep --help)'],
    ['--no- of an option that is not a flag', ['spawn', 'px', '--no-cmd'], 'spawn: unknown option --no-cmd (see tmux-fleet spawn --help)'],
    ['a value given to a flag', ['spawn', 'px', '--worktree=yes'], 'spawn: --worktree takes no value'],
    ['an option without its value', ['owner', 'px', '--as'], 'owner: --as needs a value'],
    ['a missing positional', ['takeover', '--force'], 'takeover: missing <slug> (task slug)'],
    ['a bad choice', ['hooks', 'frob'], 'hooks: <action> must be one of install, uninstall, status, not "frob"'],
    ['a choice mistyped', ['hooks', 'instal'], 'hooks: <action> must be one of install, uninstall, status, not "instal" (did you mean install?)'],
    ['an option choice mistyped', ['hooks', 'status', '--agent', 'gemni'], 'hooks: --agent must be one of claude, codex, gemini, not "gemni" (did you mean gemini?)'],
    ['an option mistyped', ['takeover', 'px', '--forse'], 'takeover: unknown option --forse (did you mean --force?) (see tmux-fleet takeover --help)'],
    ['one argument too many', ['sid-of-pane', 'a', 'b'], 'sid-of-pane: unexpected argument "b"'],
  ])('%s: a usage error', (_what, argv, message) => {
    let caught: unknown;
    try {
      parse(argv);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message).toBe(message);
  });
});
