// The helper's entry: the first code of dist/tmux-fleet.cjs that runs.
//
// Under TMUX_FLEET_DEBUG=1 a stack trace names src/<file>.ts:<line>: Node
// turns bundle positions into source positions through the .map beside the
// bundle, but only for code compiled after source maps were turned on. So the
// bundle turns them on and loads itself once more; everything else then runs
// in that second copy. Without the variable nothing of this costs a thing.
const SECOND_COPY = Symbol.for('tmux-fleet.source-maps');
const marks = globalThis as { [SECOND_COPY]?: boolean };

if (process.env.TMUX_FLEET_DEBUG === '1' && !marks[SECOND_COPY] && typeof process.setSourceMapsEnabled === 'function') {
  marks[SECOND_COPY] = true;
  process.setSourceMapsEnabled(true);
  delete require.cache[__filename];
  require(__filename);
} else {
  // Exit through process.exitCode so pending stdout is flushed.
  void import('./main').then(({ main }) => main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  }));
}
