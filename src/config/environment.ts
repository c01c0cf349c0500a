import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PRODUCT_NAME } from '../lib/product-name.js';

/**
 * Every environment variable the process reads, as one TypeBox schema: type, bounds, default and
 * meaning. `readEnvironment` validates the environment against it at start; the table in
 * docs/configuration.md is written from it (`npm run docs:configuration`) and a test holds the
 * two together. Durations are in seconds (`_SECONDS`; decimals allowed where a fraction of a
 * second makes sense). `RENAMED` lists the former names still read, each with a warning at start.
 *
 * Annotations beyond JSON Schema: `protocols` (a URL's allowed schemes) and `shownDefault` (the
 * default in the documentation's words, where it is not a value).
 */

const integer = (fallback: number, minimum: number, maximum: number, description: string) =>
  Type.Integer({ default: fallback, minimum, maximum, description });

/** A duration in seconds, decimals allowed (at most millisecond precision is used). */
const seconds = (fallback: number, minimum: number, maximum: number, description: string) =>
  Type.Number({ default: fallback, minimum, maximum, description });

const optionalInteger = (minimum: number, maximum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum, maximum, description }));

const flag = (fallback: boolean, description: string) =>
  Type.Boolean({ default: fallback, description });

const text = (fallback: string, description: string) =>
  Type.String({ default: fallback, description });

const optionalText = (description: string, options: { minLength?: number } = {}) =>
  Type.Optional(Type.String({ description, ...options }));

const url = (protocols: string[], description: string) =>
  Type.Optional(Type.String({ format: 'uri', protocols, description }));

const email = (description: string) => Type.Optional(Type.String({ format: 'email', description }));

const oneOf = (values: readonly string[], fallback: string, description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { default: fallback, description },
  );

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const Environment = Type.Object({
  PORT: integer(3000, 0, 65535, 'listening port'),
  HOST: text('127.0.0.1', 'listening address (`0.0.0.0` to listen on all interfaces)'),
  DATA_DIR: text(
    './data',
    'folder of the embedded database (PGlite), used when `DATABASE_URL` is unset; locked by the running process',
  ),
  DATABASE_URL: url(
    ['postgres:', 'postgresql:'],
    'PostgreSQL connection URL; when set, the embedded database is not used',
  ),
  REDIS_URL: url(
    ['redis:', 'rediss:'],
    'Redis for shared limits and change notices across instances (see [docs/scaling.md](scaling.md)); limits are in process when unset',
  ),
  REDIS_KEY_PREFIX: text(
    'salary-api:',
    'prefix of every Redis key and of the change channel, so deployments (or tests) can share one Redis',
  ),
  REDIS_TIMEOUT_SECONDS: seconds(
    0.5,
    0.01,
    10,
    'longest wait for one Redis command; past it the request is decided by the per-instance fallback',
  ),
  TRUST_PROXY: optionalText(
    'comma-separated addresses or CIDRs of trusted proxies; only their `X-Forwarded-For`, `X-Forwarded-Host` and `X-Forwarded-Proto` are believed (a scheme other than `http`/`https` or a host that is not a host name is never copied into a link)',
  ),
  PLAN_OVERRIDES: optionalText(
    'JSON overriding plan numbers, e.g. `{"free":{"requestLimit":1000}}` (fields: `requestLimit` (null = unlimited), `priceCents`, `historyYears`)',
  ),
  RELEASE_FILE: Type.Optional(
    Type.String({
      description:
        'the release loaded on first start when the database has none, and on a later start when it is newer than the active release',
      shownDefault: 'the bundled release',
    }),
  ),
  RELEASE_POLL_SECONDS: integer(
    5,
    1,
    3600,
    'how often each instance checks for a newly loaded release',
  ),
  ACCESS_LOG: flag(
    true,
    'one JSON line per request, written in batches; repeated 401/403/429 counted (see "The access log")',
  ),
  CREDENTIAL_REFRESH_SECONDS: seconds(
    1,
    0.1,
    60,
    'how often each instance picks up keys, plans and allowlists changed elsewhere',
  ),
  USAGE_FLUSH_SECONDS: integer(
    5,
    1,
    3600,
    "how often usage counts (and keys' last use) are written",
  ),
  BILLING_INTERVAL_SECONDS: integer(
    60,
    1,
    86_400,
    'how often the billing run is attempted (one instance at a time)',
  ),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info', '`fatal` … `trace`, or `silent`'),
  SHUTDOWN_TIMEOUT_SECONDS: integer(10, 1, 600, 'how long SIGTERM waits for in-flight requests'),
  VIES_URL: url(
    ['http:', 'https:'],
    "the EU's VIES REST service (`https://ec.europa.eu/taxation_customs/vies/rest-api`), which then verifies buyers' VAT numbers (docs/billing.md); without it numbers are checked by their check digits only",
  ),
  SELLER_NAME: Type.Optional(
    Type.String({
      description:
        'the legal name every invoice gives as the seller; `salary-api doctor` fails and the start-up line warns while it or another of `SELLER_ADDRESS`, `SELLER_COUNTRY`, `SELLER_VAT_NUMBER`, `SELLER_IBAN` is missing',
      shownDefault: 'a placeholder',
    }),
  ),
  SELLER_ADDRESS: optionalText("the seller's postal address, lines separated by `;`"),
  SELLER_COUNTRY: optionalText("the seller's EU member state (ISO code)"),
  SELLER_VAT_NUMBER: optionalText(
    "the seller's VAT number, checked against the country's form; without it invoices charge no VAT (docs/billing.md)",
  ),
  SELLER_IBAN: optionalText(
    'the account invoices are paid into by transfer: an IBAN of a SEPA country (length and check digits checked at start); open invoices then carry the transfer details and an EPC QR code (docs/billing.md, docs/operations.md)',
  ),
  SELLER_BIC: optionalText("the BIC of `SELLER_IBAN`'s bank (needs `SELLER_IBAN`)"),
  SELLER_SEPA_CREDITOR_ID: optionalText(
    'the SEPA creditor identifier (check digits ISO 7064 mod 97-10 checked at start; needs `SELLER_IBAN`): accounts may then give SEPA Direct Debit mandates, collected with `payments sepa-batch` (docs/billing.md)',
  ),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      format: 'uri',
      protocols: ['http:', 'https:'],
      description:
        "the server URL written into the OpenAPI document, the OAuth issuer and links, and the address in the examples of the front page and the quick start; the base of problem `type` URIs (the request's own origin when unset, and those pages then carry `Vary: Host, X-Forwarded-Host, X-Forwarded-Proto` for shared caches)",
      shownDefault: '`http://HOST:PORT`',
    }),
  ),
  SECRET_KEY: optionalText(
    'encrypts stored secrets (webhook signing secrets, export credentials, IBANs); at least 32 characters. Embedded mode: generated into `DATA_DIR/secret-key` (0600) when unset. With `DATABASE_URL`, `serve` requires it',
    { minLength: 32 },
  ),
  OUTBOUND_ALLOW_PRIVATE_TARGETS: flag(
    false,
    'allow `http` and private/loopback addresses for every outbound destination: webhook endpoints and export destinations (tests, on-premises)',
  ),
  WEBHOOK_POLL_SECONDS: seconds(
    1,
    0,
    600,
    'how often each `serve` process looks for due webhook deliveries; `0`: no webhook worker in this process',
  ),
  WEBHOOK_CONCURRENCY: integer(8, 1, 256, 'webhook deliveries sent at once per process'),
  METRICS_TOKEN: optionalText(
    'bearer token (16+ characters) of `GET /metrics` (Prometheus text format) on the API port; without it (and `METRICS_PORT`) there are no metrics ([docs/operations.md](operations.md))',
    { minLength: 16 },
  ),
  METRICS_PORT: optionalInteger(
    1,
    65535,
    'also serve `GET /metrics` on this port, bound to 127.0.0.1 only (the token is required there too when set)',
  ),
  BACKUP_DIR: optionalText(
    'embedded database only: `serve` writes snapshots here on `BACKUP_SCHEDULE` ([docs/operations.md](operations.md))',
  ),
  BACKUP_SCHEDULE: text('0 3 * * *', 'cron expression (UTC) of the snapshots: daily at 03:00 UTC'),
  BACKUP_KEEP: integer(
    7,
    1,
    1000,
    'snapshots kept in `BACKUP_DIR`; older ones are deleted once a new one is complete',
  ),
  SMTP_URL: url(
    ['smtp:', 'smtps:'],
    'SMTP server for e-mail notices, `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://` (implicit TLS); without it mail is written to the log at info level (docs/notices.md)',
  ),
  MAIL_FROM: Type.String({
    format: 'email',
    default: `${PRODUCT_NAME} <no-reply@localhost>`,
    description: 'sender of every notice',
  }),
  SUPPORT_EMAIL: email('where support requests are mailed (docs/support.md)'),
  COMMUNITY_URL: Type.String({
    format: 'uri',
    protocols: ['http:', 'https:'],
    default: 'https://github.com/salary-api/community/discussions',
    description: 'the community channel Free accounts are pointed to for support',
  }),
  SALES_EMAIL: email(
    `where the front page's "Contact sales" for Enterprise writes to; \`SUPPORT_EMAIL\` when not set (the plans show \`SUPPORT_EMAIL\` as the paid plans' support address)`,
  ),
  LEGAL_TERMS_FILE: optionalText(
    "the operator's own terms, served at `/legal/terms` and linked in every page's footer: a Markdown file, read at start (a path that is not a readable file stops the start); without it the page is the template of `docs/legal/`, filled from `SELLER_*` and `SUPPORT_EMAIL` and marked as a template",
  ),
  LEGAL_PRIVACY_FILE: optionalText(
    "the operator's own privacy policy, served at `/legal/privacy` (as `LEGAL_TERMS_FILE`)",
  ),
  LEGAL_DPA_FILE: optionalText(
    "the operator's own data processing agreement, served at `/legal/dpa` (as `LEGAL_TERMS_FILE`)",
  ),
  LEGAL_IMPRINT_FILE: optionalText(
    "the operator's own imprint, served at `/legal/imprint` (as `LEGAL_TERMS_FILE`)",
  ),
  NOTICE_POLL_SECONDS: seconds(
    1,
    0,
    600,
    'how often each `serve` process looks for due e-mail notices; `0`: no notice worker in this process',
  ),
  NOTICE_CONCURRENCY: integer(1, 1, 64, 'e-mail notices sent at once per process'),
  SLA_HEARTBEAT_SECONDS: integer(
    60,
    0,
    600,
    'how often each `serve` process records its SLA heartbeat (an interval without any is an outage, [docs/sla.md](sla.md)); `0`: none',
  ),
  EXPORT_POLL_SECONDS: seconds(
    30,
    0,
    600,
    'how often each `serve` process queues due export occurrences and runs queued exports; `0`: no export worker in this process',
  ),
  EXPORT_CONCURRENCY: integer(
    1,
    1,
    16,
    'export runs worked on at once per process, each file written in a worker thread of its own',
  ),
  EXPORT_HEARTBEAT_SECONDS: seconds(
    600,
    0.1,
    900,
    'how often a running export renews its 30-minute lease, so a long upload is not taken over by another instance',
  ),
  OAUTH_TOKEN_TTL_SECONDS: integer(3600, 60, 86_400, 'lifetime of OAuth access tokens'),
  DPOP_NONCE: Type.Union([Type.Literal('off'), Type.Literal('token'), Type.Literal('all')], {
    default: 'off',
    description:
      'DPoP proofs must carry a server-provided nonce (RFC 9449 §8, §9): `token` at `/oauth/token`, `all` there and on API requests, `off` nowhere (docs/oauth.md)',
  }),
});

export type Environment = Static<typeof Environment>;
export type EnvironmentName = keyof Environment;

/**
 * Former names still read, each with a warning at start naming the new one (and ignored, with a
 * warning too, when the new name is set as well). `milliseconds`: the former name's value was in
 * milliseconds, and is read as seconds.
 */
export const RENAMED: Readonly<
  Record<string, { readonly name: EnvironmentName; readonly milliseconds?: true }>
> = {
  REDIS_TIMEOUT_MS: { name: 'REDIS_TIMEOUT_SECONDS', milliseconds: true },
  CREDENTIAL_REFRESH_MS: { name: 'CREDENTIAL_REFRESH_SECONDS', milliseconds: true },
  WEBHOOK_POLL_MS: { name: 'WEBHOOK_POLL_SECONDS', milliseconds: true },
  NOTICE_POLL_MS: { name: 'NOTICE_POLL_SECONDS', milliseconds: true },
  EXPORT_POLL_MS: { name: 'EXPORT_POLL_SECONDS', milliseconds: true },
  EXPORT_HEARTBEAT_MS: { name: 'EXPORT_HEARTBEAT_SECONDS', milliseconds: true },
  WEBHOOK_ALLOW_PRIVATE_TARGETS: { name: 'OUTBOUND_ALLOW_PRIVATE_TARGETS' },
};

interface Annotated {
  readonly type?: string;
  readonly anyOf?: readonly { const: string }[];
  readonly format?: string;
  readonly protocols?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly default?: unknown;
  readonly shownDefault?: string;
  readonly description: string;
}

const variables = Environment.properties as unknown as Record<EnvironmentName, Annotated & TSchema>;

/** Reads one variable by its schema: its value, or a problem in words. */
function readVariable(
  name: string,
  schema: Annotated,
  raw: string | undefined,
): { value?: unknown; problem?: string } {
  if (raw === undefined) return { value: schema.default };
  if (schema.type === 'integer') {
    const value = Number(raw);
    if (/^\d+$/.test(raw) && value >= schema.minimum! && value <= schema.maximum!) return { value };
    return {
      problem: `${name} must be a whole number from ${schema.minimum} to ${schema.maximum} (got "${raw}")`,
    };
  }
  if (schema.type === 'number') {
    const value = Number(raw);
    if (/^\d+(\.\d+)?$/.test(raw) && value >= schema.minimum! && value <= schema.maximum!)
      return { value };
    return {
      problem: `${name} must be a number of seconds from ${schema.minimum} to ${schema.maximum} (got "${raw}")`,
    };
  }
  if (schema.type === 'boolean') {
    const lower = raw.toLowerCase();
    if (lower === 'true' || lower === '1') return { value: true };
    if (lower === 'false' || lower === '0') return { value: false };
    return { problem: `${name} must be true or false (got "${raw}")` };
  }
  if (schema.anyOf !== undefined) {
    const allowed = schema.anyOf.map((literal) => literal.const);
    const lower = raw.toLowerCase();
    if (allowed.includes(lower)) return { value: lower };
    return { problem: `${name} must be one of ${allowed.join(', ')} (got "${raw}")` };
  }
  if (schema.format === 'uri') {
    try {
      if (schema.protocols!.includes(new URL(raw).protocol)) return { value: raw };
    } catch {
      // reported below
    }
    return { problem: `${name} must be a URL starting with ${schema.protocols!.join(' or ')}//` };
  }
  if (schema.format === 'email') {
    const address = /<([^<>]+)>\s*$/.exec(raw)?.[1] ?? raw;
    if (/^[^\s@<>]+@[^\s@<>]+$/.test(address)) return { value: raw };
    return {
      problem: `${name} must be an e-mail address, optionally "Name <address>" (got "${raw}")`,
    };
  }
  if (schema.minLength !== undefined && raw.length < schema.minLength)
    return { problem: `${name} must be at least ${schema.minLength} characters` };
  return { value: raw };
}

/**
 * The environment read against the schema: each variable trimmed (empty counts as unset),
 * converted to its type, or its default. Every problem is added to `problems`, so an operator
 * fixes them in one go; a variable with a problem reads as its default. A former name (`RENAMED`)
 * is read as its new name, with a line in `warnings` naming the new one.
 */
export function readEnvironment(
  env: NodeJS.ProcessEnv,
  problems: string[],
  warnings: string[] = [],
): Environment {
  const given = (name: string): string | undefined => {
    const trimmed = env[name]?.trim();
    return trimmed === '' ? undefined : trimmed;
  };
  /** Values given under a former name, by new name, with the name to report problems under. */
  const former = new Map<string, { raw: string; label: string }>();
  for (const [old, { name, milliseconds }] of Object.entries(RENAMED)) {
    const raw = given(old);
    if (raw === undefined) continue;
    if (given(name) !== undefined) {
      warnings.push(`${old} is ignored: it is the former name of ${name}, which is set`);
      continue;
    }
    const label = `${old} (now ${name}${milliseconds ? ', in seconds' : ''})`;
    if (milliseconds && !/^\d+$/.test(raw)) {
      problems.push(`${label} must be a whole number of milliseconds (got "${raw}")`);
      continue;
    }
    const value = milliseconds ? String(Number(raw) / 1000) : raw;
    former.set(name, { raw: value, label });
    warnings.push(
      `${old} is read as ${name}=${value}; rename it, as the former name will stop being read`,
    );
  }
  const read: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(variables)) {
    const renamed = former.get(name);
    const result =
      renamed === undefined
        ? readVariable(name, schema, given(name))
        : readVariable(renamed.label, schema, renamed.raw);
    if (result.problem !== undefined) problems.push(result.problem);
    read[name] = result.problem === undefined ? result.value : schema.default;
  }
  return read as Environment;
}

/** One row of the documentation's table: the variable, its default as shown, its meaning. */
export interface VariableRow {
  readonly name: string;
  readonly shownDefault: string;
  readonly description: string;
}

/** Every variable as the documentation lists it, in the schema's order. */
export function environmentRows(): VariableRow[] {
  return Object.entries(variables).map(([name, schema]) => {
    const shown =
      schema.shownDefault ?? (schema.default === undefined ? '—' : `\`${String(schema.default)}\``);
    const bounds =
      schema.type === 'integer' || schema.type === 'number'
        ? ` (${schema.minimum} to ${schema.maximum})`
        : '';
    const old = Object.entries(RENAMED).find(([, renamed]) => renamed.name === name);
    const formerly =
      old === undefined
        ? ''
        : `; formerly \`${old[0]}\`${old[1].milliseconds === true ? ' (milliseconds)' : ''}, still read with a warning at start`;
    return {
      name,
      shownDefault: shown,
      description: `${schema.description}${bounds}${formerly}`,
    };
  });
}
