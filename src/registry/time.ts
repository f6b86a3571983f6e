// Registry times, without the row schema: the judge and Follow order rows by
// time, and loading the schema (zod) is start-up time they need not pay.

/** The latest time a Date holds (ECMAScript: 8.64e15 ms after the epoch); past it, `toISOString()` throws. */
const MAX_DATE_MS = 8.64e15;

/**
 * A registry time as milliseconds since the epoch, for ordering and drawing:
 * numbers are epoch milliseconds (or seconds, when small enough to be
 * seconds), strings ISO-8601 or digits. Unknown, unparseable, before the epoch
 * or past what a Date holds (a row is data: `9e15` must not reach
 * `new Date(…).toISOString()`): -Infinity (oldest, shown as unknown).
 */
export function timeMs(v: string | number | undefined): number {
  if (typeof v === 'number') {
    const ms = v < 1e11 ? v * 1000 : v;
    return ms >= 0 && ms <= MAX_DATE_MS ? ms : -Infinity;
  }
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return timeMs(n);
    const t = Date.parse(v);
    return Number.isFinite(t) ? timeMs(t) : -Infinity;
  }
  return -Infinity;
}
