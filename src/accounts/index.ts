export {
  createAccountService,
  publicAccount,
  SESSION_TTL_MS,
  type AccountService,
  type PublicAccount,
  type Session,
  type AuditPeriod,
  type CredentialSink,
} from './service.js';
export {
  findAccount,
  listAccounts,
  updateAccount,
  updateContacts,
  type AccountContacts,
  accountsChangedSince,
  findAccountByEmail,
  liveSessions,
  sessionsChangedSince,
  type SessionRow,
  type AccountRow,
  type Contract,
  type ResponseSchema,
} from './repo.js';
export {
  RECOVERY_CODE_COUNT,
  TOTP_CHALLENGE_TTL_MS,
  type TotpChallenge,
  type TotpEnrolment,
  type TotpStatus,
} from './totp.js';
export {
  isEmail,
  MIN_PASSWORD_LENGTH,
  normalizeEmail,
  PASSWORD_RULE,
  passwordProblem,
} from './password-policy.js';
export { DELETE_CONFIRMATION, exportFileName } from './deletion.js';
export { emailNotVerified } from './lifecycle.js';
export {
  AllowlistBodySchema,
  ChainVerificationSchema,
  CredentialsSchema,
  PasswordChangeSchema,
  TotpCodeBodySchema,
} from './schemas.js';
export {
  accountRoutes,
  AccountSchema,
  SessionSchema,
  type AccountRoutesOptions,
} from './routes.js';
