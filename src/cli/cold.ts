// Everything else, loaded together and only when asked for: the other
// commands and the yargs path (help, usage). Keeping them out of the hot
// group keeps yargs and their dependencies off `owner`'s start-up.
export * as spawn from './spawn';
export * as sweep from './sweep';
export * as takeover from './takeover';
export * as tasks from './tasks';
export * as follow from './follow';
export * as pointer from './pointer';
export * as doctor from './doctor';
export * as supervise from './supervise';
export * as hooks from './hooks';
export * as dashboard from './dashboard';
export { runWithYargs } from './yargs-cli';
