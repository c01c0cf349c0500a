import type { CredentialResolver } from '../auth/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createSecretBox } from '../lib/secret-box.js';
import type { RateLimiter } from '../limits/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { Db, Redis } from '../store/index.js';
import { createOAuthClientService } from './client-service.js';
import { DpopProofs, memoryReplayGuard, redisReplayGuard } from './dpop.js';
import { DpopNonces, type DpopNonceMode } from './dpop-nonce.js';
import { OAuthCredentialResolver, type AccountView } from './credential-resolver.js';
import { createOAuthTokenService } from './token-service.js';

/**
 * The OAuth authorization server of an API process: the token authority (clients, signing keys
 * and revocations in memory, loaded here), and the client and token services over it.
 */
export async function startOAuth(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  plans: Readonly<Record<PlanId, Plan>>;
  limiter: RateLimiter;
  secretKey: string;
  issuer: string;
  /** The paths tokens are issued for (each a resource `<issuer><path>`); the first is the default. */
  resourcePaths: readonly [string, ...string[]];
  /** Access token lifetime, seconds. */
  lifetimeS: number;
  dpopNonce: DpopNonceMode;
  /** When Redis is shared, a DPoP proof's jti is refused again on every instance. */
  redis?: { redis: Redis; prefix: string };
  account: (id: string) => AccountView | undefined;
  /** Every other credential (API keys, sessions). */
  fallback: CredentialResolver;
  onChange?: () => void;
}) {
  const { db, clock, issuer } = deps;
  const [first, ...others] = deps.resourcePaths.map((path) => ({ uri: `${issuer}${path}`, path }));
  const authority = new OAuthCredentialResolver({
    db,
    clock,
    box: createSecretBox(deps.secretKey, 'oauth-signing-keys'),
    logger: deps.logger,
    issuer,
    resources: [first!, ...others],
    lifetimeS: deps.lifetimeS,
    account: deps.account,
    fallback: deps.fallback,
    dpop: new DpopProofs({
      clock,
      issuer,
      nonces: new DpopNonces(deps.secretKey, deps.dpopNonce),
      replay:
        deps.redis === undefined
          ? memoryReplayGuard()
          : redisReplayGuard(deps.redis.redis, deps.redis.prefix),
    }),
    ...(deps.onChange === undefined ? {} : { onChange: deps.onChange }),
  });
  await authority.load();
  return {
    authority,
    clients: createOAuthClientService({ db, clock, plans: deps.plans, authority }),
    tokens: createOAuthTokenService({
      db,
      clock,
      limiter: deps.limiter,
      authority,
      lifetimeS: deps.lifetimeS,
    }),
  };
}

export type OAuthParts = Awaited<ReturnType<typeof startOAuth>>;
