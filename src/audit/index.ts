export {
  recordAudit,
  listAudit,
  verifyAuditChain,
  type AuditEntry,
  type AuditRow,
} from './service.js';
