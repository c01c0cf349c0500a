export {
  recordAudit,
  recordAuditBatch,
  createAuditWriter,
  type AuditWriter,
  listAudit,
  listAuditPeriod,
  MAX_AUDIT_EXPORT,
  type AuditEntry,
  type AuditRow,
} from './service.js';
export {
  verifyAuditChain,
  verifyAuditPeriod,
  type ChainVerification,
  type ChainBreak,
  type ChainLink,
} from './verify.js';
