export {
  type Principal,
  type CredentialResolver,
  type CredentialScheme,
  type CredentialRequest,
  type Scope,
  SCOPES,
  actorOf,
  allowlistOwner,
  credentialName,
  usageKeyOf,
} from './principal.js';
export { addressBucket } from './client-address.js';
export { AddressMatcher, allowlistProblems, MAX_ALLOWLIST_ENTRIES } from './allowlist.js';
export { type RouteAuth, type AuthenticatedRoute } from './route-auth.js';
