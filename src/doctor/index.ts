export {
  BEFORE_OPEN_CHECKS,
  DEFAULT_CHECKS,
  formatResults,
  openForDoctor,
  runChecks,
  type Check,
  type CheckResult,
  type CheckStatus,
  type DoctorContext,
} from './checks.js';
