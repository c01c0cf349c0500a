export {
  recordAudit,
  listAudit,
  verifyAuditChain,
  listAuditPeriod,
  MAX_AUDIT_EXPORT,
  type AuditEntry,
  type AuditRow,
} from './service.js';
export {
  verifyAuditPeriod,
  type ChainVerification,
  type ChainBreak,
  type ChainLink,
} from './verify.js';
