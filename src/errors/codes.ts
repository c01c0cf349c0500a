/**
 * Every error the API returns, in one registry: its HTTP status, title and what a client does
 * about it. The problem `type` of a code is `<base>/errors/<slug>`, a page this server renders
 * from this table and the code's section of docs/errors.md (what it means);
 * test/http/errors.test.ts keeps the two in step.
 */
export const ERROR_CODES = {
  INVALID_PARAMETER: {
    status: 400,
    title: 'Invalid parameter',
    action: 'Correct the parameters named in invalid_params, using one of the allowed values.',
  },
  INVALID_BODY: {
    status: 400,
    title: 'Invalid request body',
    action: 'Send a JSON body that matches the operation’s schema in the API reference.',
  },
  UNAUTHENTICATED: {
    status: 401,
    title: 'Missing or invalid credential',
    action:
      'Send a valid API key as “Authorization: Bearer <key>”; create or rotate keys in the dashboard.',
  },
  WEAK_PASSWORD: {
    status: 400,
    title: 'Password too weak',
    action: 'Choose a longer passphrase (12 characters or more) that is not a common password.',
  },
  FEATURE_NOT_IN_PLAN: {
    status: 403,
    title: 'Feature not in plan',
    action: 'Upgrade to the plan named in required_plan, or ask without the feature.',
  },
  ADDRESS_NOT_ALLOWED: {
    status: 403,
    title: 'Address not on the allowlist',
    action:
      'Call from an address on the allowlist, or add this address to it in the dashboard (Account).',
  },
  SCOPE_MISSING: {
    status: 403,
    title: 'Scope missing',
    action: 'Use a key or OAuth client that holds the scope named in required_scope.',
  },
  TEST_MODE_NOT_ALLOWED: {
    status: 403,
    title: 'Not available in test mode',
    action:
      'Call this endpoint with a live key (sk_live_…) or a session; test keys read figures only.',
  },
  KEY_EXCEEDS_CALLER: {
    status: 403,
    title: 'Key broader than the caller',
    action: 'Ask for no more scopes than the calling key holds, or sign in to the dashboard.',
  },
  EMAIL_NOT_VERIFIED: {
    status: 403,
    title: 'E-mail address not verified',
    action:
      'Follow the link mailed to the account’s address, or have a new one sent (POST /api/v1/account/email-verification, or the dashboard).',
  },
  BILLING_DETAILS_REQUIRED: {
    status: 409,
    title: 'Billing details required',
    action:
      'Give the name, address and country invoices are made out to (PUT /api/v1/account/billing-details, or the dashboard’s Billing page), then change the plan again.',
  },
  PAYMENT_OVERDUE: {
    status: 402,
    title: 'Payment overdue',
    action: 'Pay the invoices listed in overdue_invoices, then subscribe again.',
  },
  NOT_FOUND: {
    status: 404,
    title: 'Not found',
    action: 'Check the path and the identifier against the API reference.',
  },
  NO_DATA: {
    status: 404,
    title: 'No data for this query',
    action: 'Ask for one of the years in available_years.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: 'Method not allowed',
    action: 'Use one of the methods in the Allow header.',
  },
  NOT_ACCEPTABLE: {
    status: 406,
    title: 'Not acceptable',
    action: 'Ask for JSON, CSV, Excel, XML or Parquet with format= or the Accept header.',
  },
  EMAIL_TAKEN: {
    status: 409,
    title: 'E-mail already registered',
    action: 'Sign in with this address, or reset its password.',
  },
  KEY_LIMIT_REACHED: {
    status: 409,
    title: 'API key limit reached',
    action: 'Revoke a key you no longer use, or upgrade to a plan with more keys.',
  },
  OAUTH_CLIENT_LIMIT_REACHED: {
    status: 409,
    title: 'OAuth client limit reached',
    action: 'Delete an OAuth client you no longer use.',
  },
  WEBHOOK_LIMIT_REACHED: {
    status: 409,
    title: 'Webhook endpoint limit reached',
    action: 'Delete a webhook endpoint you no longer use.',
  },
  EXPORT_LIMIT_REACHED: {
    status: 409,
    title: 'Export limit reached',
    action: 'Delete a scheduled export you no longer use.',
  },
  CONFLICT: {
    status: 409,
    title: 'Conflict',
    action: 'Read the current state of the resource, then send the change that fits it.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    title: 'Idempotency key reused',
    action: 'Use a new Idempotency-Key for a different request; retry with the same body.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: 'Payload too large',
    action: 'Send a body under 1 MiB.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported media type',
    action: 'Send the body as JSON with “Content-Type: application/json”.',
  },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    title: 'Range not satisfiable',
    action: 'Ask for a range that starts before the file’s length, or for the whole file.',
  },
  RATE_LIMITED: {
    status: 429,
    title: 'Rate limit reached',
    action:
      'Wait the seconds in Retry-After and send the same request again; upgrade for a higher limit.',
  },
  TOO_MANY_ATTEMPTS: {
    status: 429,
    title: 'Too many attempts',
    action: 'Wait the seconds in Retry-After before trying again.',
  },
  TOO_MANY_DOWNLOADS: {
    status: 429,
    title: 'Too many large downloads at once',
    action: 'Wait for one of your large files to finish, or retry after Retry-After seconds.',
  },
  INTERNAL: {
    status: 500,
    title: 'Internal error',
    action: 'Retry later; if it persists, write to support quoting the request_id.',
  },
  DEPENDENCY_UNAVAILABLE: {
    status: 503,
    title: 'Service temporarily unavailable',
    action: 'Retry after the seconds in Retry-After; the status page shows ongoing incidents.',
  },
  SHUTTING_DOWN: {
    status: 503,
    title: 'Server is shutting down',
    action: 'Retry the request; another instance answers it.',
  },
  DOWNLOADS_BUSY: {
    status: 503,
    title: 'Busy with large downloads',
    action: 'Retry after the seconds in Retry-After.',
  },
  DOCUMENT_WITHDRAWN: {
    status: 410,
    title: 'Document withdrawn',
    action: 'Download the version named in current_version_id.',
  },
  CUSTOM_ENDPOINT_LIMIT_REACHED: {
    status: 409,
    title: 'Custom endpoint limit reached',
    action: 'Delete a custom endpoint you no longer use.',
  },
  MALFORMED_REQUEST: {
    status: 400,
    title: 'Malformed HTTP request',
    action:
      'Send a valid HTTP/1.1 request (an HTTP client library does); the detail names the fault.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    title: 'Request timeout',
    action: 'Send the whole request, headers and body, within the time allowed, then retry.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    title: 'Request headers too large',
    action: 'Send the request with headers of at most 16 KiB in all.',
  },
  DOWNLOAD_LINK_INVALID: {
    status: 403,
    title: 'Download link invalid or expired',
    action: 'Run the export again for a new link.',
  },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    title: 'Origin or Host not allowed',
    action:
      'Call the MCP server from its own origin or from a client that sends no Origin, at its own host name.',
  },
} as const satisfies Record<string, { status: number; title: string; action: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The codes answered on the connection itself, when its bytes never became a request: their
 * documents have no `instance`, `request_id` or host (http/client-errors.ts).
 */
export const CONNECTION_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'MALFORMED_REQUEST',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
]);

const SLUGS = new Map<ErrorCode, string>(
  Object.keys(ERROR_CODES).map((code) => [
    code as ErrorCode,
    code.toLowerCase().replaceAll('_', '-'),
  ]),
);
const CODES_BY_SLUG = new Map([...SLUGS].map(([code, slug]) => [slug, code]));

/** The page name of a code: `RATE_LIMITED` → `rate-limited`. */
export function errorSlug(code: ErrorCode): string {
  return SLUGS.get(code) as string;
}

/** The code a page name stands for, if any. */
export function errorCodeOfSlug(slug: string): ErrorCode | undefined {
  return CODES_BY_SLUG.get(slug);
}

/**
 * The problem `type` URI of an error code under a base URL (`https://api.example.eu` →
 * `https://api.example.eu/errors/rate-limited`); `about:blank` when there is no page to link
 * (a white-label account whose licensee has no host name of its own).
 */
export function problemType(code: ErrorCode, base: string | null): string {
  return base === null ? 'about:blank' : `${base}/errors/${errorSlug(code)}`;
}
