export { RegistryRowSchema } from './schema';
export type { RegistryRow, RegistryEntry } from './schema';
export { readRegistry, ROW_FILE_RE, MAX_ROW_BYTES } from './reader';
export type { RegistrySnapshot } from './reader';
export { aliveRows, startTimes, sessionLiveness } from './liveness';
export type { Liveness } from './liveness';
