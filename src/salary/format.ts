import { AppError } from '../errors/index.js';
import { MEDIA_TYPES } from '../formats/index.js';
import { FORMATS, type Format } from '../plans/index.js';

const BY_MEDIA_TYPE = new Map<string, Format>(
  Object.entries(MEDIA_TYPES).map(([format, type]) => [type, format as Format]),
);

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

function acceptedFormat(accept: string): Format | null {
  if (accept.trim() === '') return 'json';
  let best: { format: Format; q: number } | undefined;
  let anyAllowed = false;
  for (const part of accept.split(',')) {
    const [rawType = '', ...params] = part.split(';');
    const type = rawType.trim().toLowerCase();
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    const format =
      type === '*/*' || type === 'application/*' || type === 'application/problem+json'
        ? ((anyAllowed = true), 'json' as const)
        : BY_MEDIA_TYPE.get(type);
    if (format !== undefined && (best === undefined || q > best.q)) best = { format, q };
  }
  if (best !== undefined) return best.format;
  if (anyAllowed) return 'json';
  return null;
}
