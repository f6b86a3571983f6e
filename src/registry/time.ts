// Registry times, without the row schema: the judge and Follow order rows by
// time, and loading the schema (zod) is start-up time they need not pay.

/**
 * A registry time as milliseconds since the epoch, for ordering: numbers are
 * epoch milliseconds (or seconds, when small enough to be seconds), strings
 * ISO-8601. Unknown or unparseable: -Infinity (oldest).
 */
export function timeMs(v: string | number | undefined): number {
  if (typeof v === 'number') return Number.isFinite(v) ? (v < 1e11 ? v * 1000 : v) : -Infinity;
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return timeMs(n);
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : -Infinity;
  }
  return -Infinity;
}
