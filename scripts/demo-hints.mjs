// What the demo tells a user before attaching: pure, so the wording is tested.

/** tmux's key name (C-b, C-Space, M-a) as people say it (Ctrl-b, Ctrl-Space, Alt-a). */
export function keyName(key) {
  return key.replace(/^C-/, 'Ctrl-').replace(/^M-/, 'Alt-');
}

/**
 * The line about the prefix. The demo server has tmux's default prefix,
 * Ctrl-b. Inside another tmux whose prefix is also Ctrl-b, the outer one takes
 * the first press; with another outer prefix, Ctrl-b reaches the demo as is.
 * `outerPrefix`: the outer server's prefix (tmux show -gv prefix), or null outside tmux.
 */
export function prefixHint(socket, outerPrefix) {
  const base = `tmux-fleet demo on a private server (tmux -L ${socket}); the prefix is Ctrl-b`;
  if (outerPrefix === null) return `${base}.`;
  if (outerPrefix === 'C-b') return `${base} (inside your tmux, whose prefix is Ctrl-b too: press Ctrl-b twice).`;
  return `${base} (inside your tmux, whose prefix is ${keyName(outerPrefix)}: Ctrl-b reaches the demo directly).`;
}
