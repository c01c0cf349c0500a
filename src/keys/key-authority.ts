import { AddressMatcher, credentialName, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';

/**
 * What a credential may hand on to the keys it creates, rotates or changes. Sessions and keys
 * without scopes of their own (plans without scoped keys) hold every right; an Enterprise key
 * holds its scopes and, when it has one, its own IP allowlist. A key may never mint or manage a
 * key broader than itself, or it could escape its own limits.
 */
export interface KeyAuthority {
  /** null: every scope. */
  readonly scopes: ReadonlySet<string> | null;
  /** The caller key's own allowlist when it has one and the plan enforces it. */
  readonly allowlist: AddressMatcher | null;
  /** The caller's credential as refusals name it: `API key`, `OAuth access token`, `session`. */
  readonly credential: string;
}

/** What a key is (or would become): the rights it grants. */
export interface KeyRights {
  /** null: every scope. */
  readonly scopes: readonly string[] | null;
  readonly allowlist: readonly string[];
}

export function keyAuthority(
  principal: Principal,
  callerKeyAllowlist: readonly string[] | null,
): KeyAuthority {
  return {
    scopes: principal.scopes,
    allowlist:
      principal.plan.ipAllowlist && callerKeyAllowlist !== null && callerKeyAllowlist.length > 0
        ? new AddressMatcher(callerKeyAllowlist)
        : null,
    credential: credentialName(principal),
  };
}

/** Fills what a key created by this caller inherits when the request leaves it out. */
export function inheritRights<T extends { scopes?: string[]; allowlist?: string[] }>(
  authority: KeyAuthority,
  input: T,
): T {
  return {
    ...input,
    scopes: input.scopes ?? (authority.scopes === null ? undefined : [...authority.scopes]),
    allowlist: input.allowlist ?? authority.allowlist?.entries.slice(),
  };
}

/** Throws 403 KEY_EXCEEDS_CALLER when `target` grants anything the caller does not hold. */
export function assertWithinAuthority(
  authority: KeyAuthority,
  target: KeyRights,
  verb: string,
  /** What the target is, with its article: `a key` (the default), `an OAuth client`. */
  noun = 'a key',
): void {
  if (authority.scopes !== null) {
    const held = authority.scopes;
    const missing =
      target.scopes === null ? ['every scope'] : target.scopes.filter((scope) => !held.has(scope));
    if (missing.length > 0) {
      throw new AppError(
        'KEY_EXCEEDS_CALLER',
        `This ${authority.credential} cannot ${verb} ${noun} with scopes it does not hold itself: ${missing.join(', ')}.`,
        { extensions: { missing_scopes: missing, caller_scopes: [...held].sort() } },
      );
    }
  }
  const limit = authority.allowlist;
  if (limit !== null) {
    const outside =
      target.allowlist.length === 0
        ? ['every address']
        : target.allowlist.filter((entry) => !limit.covers(entry));
    if (outside.length > 0) {
      throw new AppError(
        'KEY_EXCEEDS_CALLER',
        `This ${authority.credential} is limited to ${authority.credential === 'API key' ? 'its' : "its client's"} IP allowlist; it cannot ${verb} ${noun} usable from ${outside.join(', ')}.`,
        { extensions: { outside_allowlist: outside, caller_allowlist: limit.entries } },
      );
    }
  }
}
