export { acceptanceGate, pointerLine, launchPrompt, quoteValue, SHORT_SID_LENGTH } from './pointer';
export type { PointerParent } from './pointer';
