// "Did you mean …?" for a mistyped name (a task slug, a command). Pure and
// small: the fast bundle carries it (owner answers an unknown task with it).

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]!.push(d);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a typo (at
 * most a third of the word's length in edits, at least one); null otherwise,
 * or when two are equally close.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  let tie = false;
  for (const c of new Set(candidates)) {
    if (c === word) return c;
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) tie = true;
  }
  return best !== null && bestDistance <= limit && !tie ? best : null;
}

/** ` (did you mean <prefix><name>?)` when `word` is a typo of one of the candidates; else ''. For commands, options and choices. */
export function didYouMean(word: string, candidates: readonly string[], prefix = ''): string {
  const near = closest(word, candidates);
  return near !== null && near !== word ? ` (did you mean ${prefix}${near}?)` : '';
}

/** What an error about an unknown name adds: `did you mean x?`, else the names there are (at most `max`), else ''. */
export function suggestion(word: string, candidates: readonly string[], what: string, max = 10): string {
  const near = closest(word, candidates);
  if (near !== null) return `did you mean ${near}?`;
  if (candidates.length === 0) return '';
  const shown = candidates.slice(0, max).join(', ');
  return `${what}: ${shown}${candidates.length > max ? `, … (${candidates.length} in all)` : ''}`;
}
