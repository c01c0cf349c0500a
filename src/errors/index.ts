export { AppError, isAppError, type InvalidParam, type AppErrorOptions } from './app-error.js';
export { ERROR_CODES, problemType, type ErrorCode, DOCS_BASE } from './codes.js';
