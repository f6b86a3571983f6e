export { Tmux, parseRows, setOptionCommands } from './client';
export type { TmuxReads, TmuxResult } from './client';
export { sessionTarget, escapeArg, chainArgs, escapeFormat, FIELD_SEP } from './args';
export { ShellRunner } from './shell-runner';
