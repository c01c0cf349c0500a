export {
  recordAudit,
  listAudit,
  verifyAuditChain,
  type AuditEntry,
  type AuditRow,
} from './service.js';
export { verifyAuditPeriod, type ChainVerification, type ChainBreak, type ChainLink } from './verify.js';
