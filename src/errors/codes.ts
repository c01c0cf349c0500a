/**
 * Every error the API returns, in one registry: its HTTP status, title and the problem `type`
 * URI (which resolves to the matching section of docs/errors.md). test/http/errors.test.ts
 * keeps this table and docs/errors.md in step.
 */
export const ERROR_CODES = {
  INVALID_PARAMETER: { status: 400, title: 'Invalid parameter' },
  INVALID_BODY: { status: 400, title: 'Invalid request body' },
  UNAUTHENTICATED: { status: 401, title: 'Missing or invalid credential' },
  WEAK_PASSWORD: { status: 400, title: 'Password too weak' },
  FEATURE_NOT_IN_PLAN: { status: 403, title: 'Feature not in plan' },
  ADDRESS_NOT_ALLOWED: { status: 403, title: 'Address not on the allowlist' },
  SCOPE_MISSING: { status: 403, title: 'Scope missing' },
  KEY_EXCEEDS_CALLER: { status: 403, title: 'Key broader than the caller' },
  PAYMENT_OVERDUE: { status: 402, title: 'Payment overdue' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  NO_DATA: { status: 404, title: 'No data for this query' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  EMAIL_TAKEN: { status: 409, title: 'E-mail already registered' },
  KEY_LIMIT_REACHED: { status: 409, title: 'API key limit reached' },
  OAUTH_CLIENT_LIMIT_REACHED: { status: 409, title: 'OAuth client limit reached' },
  WEBHOOK_LIMIT_REACHED: { status: 409, title: 'Webhook endpoint limit reached' },
  EXPORT_LIMIT_REACHED: { status: 409, title: 'Export limit reached' },
  CONFLICT: { status: 409, title: 'Conflict' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, title: 'Idempotency key reused' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RANGE_NOT_SATISFIABLE: { status: 416, title: 'Range not satisfiable' },
  RATE_LIMITED: { status: 429, title: 'Rate limit reached' },
  TOO_MANY_ATTEMPTS: { status: 429, title: 'Too many attempts' },
  TOO_MANY_DOWNLOADS: { status: 429, title: 'Too many large downloads at once' },
  INTERNAL: { status: 500, title: 'Internal error' },
  DEPENDENCY_UNAVAILABLE: { status: 503, title: 'Service temporarily unavailable' },
  SHUTTING_DOWN: { status: 503, title: 'Server is shutting down' },
  DOWNLOADS_BUSY: { status: 503, title: 'Busy with large downloads' },
  // Compliance documents (issue 16).
  DOCUMENT_WITHDRAWN: { status: 410, title: 'Document withdrawn' },
  CUSTOM_ENDPOINT_LIMIT_REACHED: { status: 409, title: 'Custom endpoint limit reached' },
  // Export files of webhook destinations.
  DOWNLOAD_LINK_INVALID: { status: 403, title: 'Download link invalid or expired' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const DOCS_BASE = 'https://docs.salary-api.eu/errors';

/** The problem `type` URI of an error code, e.g. https://docs.salary-api.eu/errors#rate-limited */
export function problemType(code: ErrorCode): string {
  let type = problemTypes.get(code);
  if (type === undefined) {
    type = `${DOCS_BASE}#${code.toLowerCase().replaceAll('_', '-')}`;
    problemTypes.set(code, type);
  }
  return type;
}

/** Built once per code: refusals are the cheapest requests an attacker can send. */
const problemTypes = new Map<ErrorCode, string>();
