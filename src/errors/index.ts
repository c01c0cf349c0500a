export { AppError, isAppError, type InvalidParam, type AppErrorOptions } from './app-error.js';
export {
  CONNECTION_ERRORS,
  ERROR_CODES,
  errorCodeOfSlug,
  errorSlug,
  problemType,
  type ErrorCode,
} from './codes.js';
