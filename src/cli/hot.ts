// The commands hooks and scripts call often, loaded together: one dynamic
// import, so their code comes in a couple of chunks rather than a dozen
// (each ES module costs its own resolve, read and compile; SPEC section 10).
export * as owner from './owner';
export * as stamp from './stamp';
export * as sidOfPane from './sid-of-pane';
