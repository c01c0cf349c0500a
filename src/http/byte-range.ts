/** Bytes `start` to `end` of a representation, both included (RFC 9110 §14.1.2). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * What a `Range` header asks of a representation of `length` bytes (RFC 9110 §14.2):
 * - `undefined`: answer the whole representation (200). So for no header, another range unit,
 *   a malformed value, and several ranges (a server may ignore Range; one range is what a
 *   resuming download sends);
 * - `'unsatisfiable'`: no byte of the one range is in the representation (416);
 * - a range: its bytes (206), the last position capped at the last byte.
 * `bytes=a-b`, `bytes=a-` and the suffix `bytes=-n` are understood; the unit is
 * case-insensitive and spaces or tabs around the range are allowed.
 */
export function requestedRange(
  header: string | undefined,
  length: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = RANGE.exec(header);
  if (match === null) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return undefined;
  if (first === '') {
    // A suffix: the last n bytes (all of them when n is larger).
    const suffix = Number(last);
    if (suffix === 0 || length === 0) return 'unsatisfiable';
    return { start: Math.max(length - suffix, 0), end: length - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (end < start) return undefined;
  if (start >= length) return 'unsatisfiable';
  return { start, end: Math.min(end, length - 1) };
}

// One range, with optional whitespace (SP, HTAB) around its parts; positions of at most 15
// digits stay exact as numbers (longer ones are malformed: the whole file).
const RANGE = /^[ \t]*bytes[ \t]*=[ \t]*(\d{0,15})[ \t]*-[ \t]*(\d{0,15})[ \t]*$/i;

/** `If-Range` (RFC 9110 §13.1.5): a range is served only when the validator matches exactly. */
export function rangeStillValid(ifRange: string | undefined, etag: string): boolean {
  // A date validator is never strong enough here (the file has no Last-Modified): whole file.
  return ifRange === undefined || ifRange === etag;
}
