import type { Plan } from '../plans/index.js';

/** Who is calling: the plan in force and the bucket their requests count against. */
export interface Principal {
  readonly plan: Plan;
  /** null for anonymous (Free) callers. */
  readonly accountId: string | null;
  readonly keyId: string | null;
  /** Rate-limit bucket: `acct:<id>` for accounts, `addr:<address or /64>` for anonymous callers. */
  readonly limitBucket: string;
}

/**
 * Resolves a bearer credential to its principal, or undefined when no such credential exists
 * (revoked, expired, never issued). Implemented by the keys feature; the hot path calls it,
 * so it answers from memory.
 */
export interface CredentialResolver {
  resolve(
    token: string,
    clientAddress: string,
  ): Principal | undefined | Promise<Principal | undefined>;
}

/** Until accounts exist no credential has been issued, so every presented credential is unknown. */
export const noCredentialsIssued: CredentialResolver = Object.freeze({ resolve: () => undefined });
