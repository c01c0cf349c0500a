import type { IncomingHttpHeaders } from 'node:http';
import type { Plan } from '../plans/index.js';
import type { AddressMatcher } from './allowlist.js';

export const SCOPES = [
  'salary:read',
  'bulk:read',
  'usage:read',
  'keys:read',
  'keys:write',
  'account:read',
  'account:write',
  'billing:read',
  'billing:write',
  'webhooks:read',
  'webhooks:write',
  'exports:read',
  'exports:write',
  'oauth:read',
  'oauth:write',
  'compliance:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: the plan in force, what they may do and the bucket their requests count in. */
export interface Principal {
  readonly kind: 'anonymous' | 'key' | 'session' | 'oauth';
  readonly plan: Plan;
  /** null for anonymous (Free) callers. */
  readonly accountId: string | null;
  readonly keyId: string | null;
  readonly sessionId: string | null;
  /** The OAuth client whose access token this is (kind 'oauth'). */
  readonly clientId?: string;
  /** null: every scope (sessions, and keys of plans without scoped keys). */
  readonly scopes: ReadonlySet<string> | null;
  /**
   * Allowlists the client address must satisfy (account's and key's), each when non-empty;
   * a session's bind it on data routes only (see RouteAuth).
   */
  readonly allowlists: readonly AddressMatcher[];
  /** Enterprise custom response schema: the fields of salary responses and their names. */
  readonly responseSchema: {
    readonly fields: readonly { readonly field: string; readonly name: string }[];
  } | null;
  /**
   * Rate-limit bucket: `acct:<id>` for accounts, `addr:<address or /64>` for anonymous callers,
   * `test:<account id>` for the account's test-mode keys together.
   */
  readonly limitBucket: string;
  /**
   * 'test' for a test-mode key (`sk_test_…`), taken from the stored key: outside quota, usage
   * and the SLA, under its own rate limit, on the data routes that read figures only. Absent
   * for every other credential.
   */
  readonly mode?: 'test';
}

/**
 * Resolves a bearer credential to its principal, or undefined when no such credential exists
 * (revoked, expired, never issued). API keys answer from memory on the hot path.
 */
export interface CredentialResolver {
  /**
   * `scheme` is how the credential came (`DPoP`: a sender-constrained OAuth token, RFC 9449);
   * `request` is the request it came with (node's IncomingMessage), which a DPoP proof is
   * checked against. Either may be left out by callers that only hold bearer credentials.
   */
  resolve(
    token: string,
    scheme?: CredentialScheme,
    request?: CredentialRequest,
  ): Principal | undefined | Promise<Principal | undefined>;
}

export type CredentialScheme = 'Bearer' | 'DPoP';

/** What of a request a credential may be checked against. */
export interface CredentialRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** The usage bucket within the account: the key, the OAuth client, or '' (sessions). */
export function usageKeyOf(p: Principal | null): string | null {
  return p === null ? null : (p.keyId ?? p.clientId ?? null);
}

/** Who acted, for the audit log: `key:<id>`, `account:<id>`, `operator` (the CLI) or `anonymous`. */
export function actorOf(p: Principal): string {
  if (p.keyId !== null) return `key:${p.keyId}`;
  if (p.clientId !== undefined) return `oauth_client:${p.clientId}`;
  if (p.kind === 'session') return `account:${p.accountId}`;
  return p.accountId !== null ? 'operator' : 'anonymous';
}

/**
 * What the caller authenticated with, as a refusal names it ("This OAuth access token lacks
 * …"): a message must not call an access token or a session an API key.
 */
export function credentialName(p: Pick<Principal, 'kind'>): string {
  switch (p.kind) {
    case 'oauth':
      return 'OAuth access token';
    case 'session':
      return 'session';
    case 'key':
      return 'API key';
    default:
      return 'request';
  }
}

/** The allowlists a principal is bound by, as a refusal names them. */
export function allowlistOwner(p: Pick<Principal, 'kind'>): string {
  switch (p.kind) {
    case 'oauth':
      return "this OAuth client's or the account's IP allowlist";
    case 'key':
      return "this key's or the account's IP allowlist";
    default:
      return "the account's IP allowlist";
  }
}
