import pino from 'pino';
import type { Config } from '../config/index.js';

/**
 * Bytes of log lines gathered before one write to standard output (about 8 access lines), and
 * the most one write takes; a line waits at most LOG_FLUSH_MS when traffic is low. sonic-boom
 * measures the gathered text again at every line, so a larger buffer costs more per line than
 * the writes it saves (docs/dependencies.md).
 */
const LOG_MIN_BYTES = 2048;
const LOG_MAX_WRITE = 4096;
const LOG_FLUSH_MS = 250;

/**
 * `buffered`: the server's lines leave in batches through pino's asynchronous destination
 * (sonic-boom), which pino flushes synchronously at exit; commands write each line at once.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, buffered = false): pino.Logger {
  const options = { level: config.logLevel, base: { service: 'salary-api' } };
  if (!buffered) return pino(options);
  return pino(
    options,
    pino.destination({
      dest: 1,
      sync: false,
      minLength: LOG_MIN_BYTES,
      maxWrite: LOG_MAX_WRITE,
      periodicFlush: LOG_FLUSH_MS,
    }),
  );
}
