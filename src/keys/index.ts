export { CredentialCache } from './credential-cache.js';
export {
  createKeyService,
  publicKey,
  ROTATION_GRACE_MS,
  type KeyService,
  type PublicKey,
  type KeyInput,
} from './service.js';
export { KEY_PREFIX, generateKey } from './key-format.js';
export { revokeKeysBeyond, touchKeys } from './repo.js';
export { queueGraceNotices, GRACE_NOTICE_LEAD_MS } from './grace-notices.js';
export { callerAuthority } from './service.js';
export {
  assertWithinAuthority,
  inheritRights,
  type KeyAuthority,
  type KeyRights,
} from './key-authority.js';
export { keyRoutes, KeyBodySchema, KeyNameSchema, KeySchema, NewKeySchema } from './routes.js';
