export { oauthClientRoutes, OAuthClientSchema, NewOAuthClientSchema } from './client-routes.js';
export {
  createOAuthClientService,
  MAX_CLIENTS,
  type OAuthClientService,
  type PublicClient,
} from './client-service.js';
export { AUTH_METHODS } from './token-service.js';
export { oauthServerRoutes } from './server-routes.js';
export { OAuthCredentialResolver, looksLikeJwt, type AccountView } from './credential-resolver.js';
export { startOAuth, type OAuthParts } from './parts.js';
export { createOAuthTokenService, type OAuthTokenService } from './token-service.js';
export { withdrawSigningKey, signingKeys } from './repo.js';
export { rotateSigningKey } from './signing.js';
export {
  DpopProofs,
  DPOP_ALGS,
  DPOP_INVALID_TOKEN,
  memoryReplayGuard,
  redisReplayGuard,
  type ProofReplayGuard,
} from './dpop.js';
export { DpopNonces, NONCE_WINDOW_MS, type DpopNonceMode } from './dpop-nonce.js';
