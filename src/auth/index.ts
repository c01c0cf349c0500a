export { type Principal, type CredentialResolver, noCredentialsIssued } from './principal.js';
export { addressBucket } from './client-address.js';
