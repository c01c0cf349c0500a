export {
  createAccountService,
  publicAccount,
  SESSION_TTL_MS,
  type AccountService,
  type PublicAccount,
  type Session,
} from './service.js';
export {
  findAccount,
  listAccounts,
  updateAccount,
  accountsChangedSince,
  findAccountByEmail,
  type AccountRow,
  type Contract,
  type ResponseSchema,
} from './repo.js';
export { isEmail, normalizeEmail, passwordProblem } from './password-policy.js';
