import { AppError } from '../errors/index.js';
import { MEDIA_TYPES } from '../formats/index.js';
import { FORMATS, type Format } from '../plans/index.js';

/**
 * Accept headers already negotiated, and their format (null: none we produce). Clients send
 * the same few values on every request; parsing one costs more than the rest of a refusal.
 * Bounded: at most NEGOTIATED_MAX values of at most NEGOTIATED_CHARS characters are kept.
 */
const negotiated = new Map<string, Format | null>();
const NEGOTIATED_MAX = 256;
const NEGOTIATED_CHARS = 256;

/**
 * The response format: an explicit `format` parameter wins; otherwise the Accept header's
 * most preferred media type we produce; otherwise JSON. An Accept header naming only types
 * we never produce is a 406.
 */
export function negotiateFormat(param: Format | undefined, accept: string | undefined): Format {
  if (param !== undefined) return param;
  if (accept === undefined) return 'json';
  let format = negotiated.get(accept);
  if (format === undefined) {
    format = acceptedFormat(accept);
    if (accept.length <= NEGOTIATED_CHARS) {
      if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
      negotiated.set(accept, format);
    }
  }
  if (format !== null) return format;
  throw new AppError(
    'NOT_ACCEPTABLE',
    'The Accept header names no media type this endpoint produces.',
    {
      extensions: { available: Object.values(MEDIA_TYPES), formats: FORMATS },
    },
  );
}

/** The formats in the order a tie goes (JSON first), with the media types that name each. */
const CANDIDATES: readonly { format: Format; types: readonly string[] }[] = (
  Object.entries(MEDIA_TYPES) as [Format, string][]
).map(([format, type]) => ({
  format,
  // Problem details are JSON: a client asking only for them gets the JSON answer.
  types: format === 'json' ? [type, 'application/problem+json'] : [type],
}));

interface MediaRange {
  readonly type: string;
  readonly q: number;
  readonly order: number;
}

/**
 * The format the Accept header prefers (RFC 9110 §12.5.1), null when it accepts none we
 * produce. Each format takes the q of the most specific range that matches it (its own type,
 * then `type/*`, then `*\/*`), so `application/json;q=0, *\/*` refuses JSON and `text/*`
 * accepts CSV; the highest q wins, then the range listed first, then JSON.
 */
function acceptedFormat(accept: string): Format | null {
  if (accept.trim() === '') return 'json';
  const ranges: MediaRange[] = [];
  accept.split(',').forEach((part, order) => {
    const [rawType = '', ...params] = part.split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    ranges.push({ type: rawType.trim().toLowerCase(), q: Number.isNaN(q) ? 0 : q, order });
  });
  let best: { format: Format; q: number; order: number } | undefined;
  for (const { format, types } of CANDIDATES) {
    const range = mostSpecific(ranges, types);
    if (range === undefined || !(range.q > 0)) continue;
    if (best === undefined || range.q > best.q || (range.q === best.q && range.order < best.order))
      best = { format, q: range.q, order: range.order };
  }
  return best?.format ?? null;
}

/** The range matching one of `types` most specifically: exact, then `type/*`, then `*\/*`. */
function mostSpecific(
  ranges: readonly MediaRange[],
  types: readonly string[],
): MediaRange | undefined {
  let found: MediaRange | undefined;
  let specificity = -1;
  for (const range of ranges) {
    let level = -1;
    if (types.includes(range.type)) level = 2;
    else if (range.type === '*/*') level = 0;
    else if (range.type.endsWith('/*')) {
      const main = range.type.slice(0, -1);
      if (types.some((type) => type.startsWith(main))) level = 1;
    }
    if (level > specificity) {
      found = range;
      specificity = level;
    }
  }
  return found;
}
