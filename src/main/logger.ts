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
 * `buffered`: the server's lines are gathered by pino's destination (sonic-boom) and written in
 * batches, each write synchronous, so the lines in memory never exceed one batch and a slow reader
 * of standard output slows the server rather than growing its memory; the last batch is written
 * at exit. Commands write each line at once. An asynchronous destination (one write in flight at a
 * time, completed on a later turn of the event loop) fell behind a busy server: after 40 s of
 * lookups at 50 connections, three quarters of the lines were still queued in memory and the
 * process held 160 MiB more (docs/dependencies.md).
 */
export function createLogger(config: Pick<Config, 'logLevel'>, buffered = false): pino.Logger {
  const options = { level: config.logLevel, base: { service: 'salary-api' } };
  if (!buffered) return pino(options);
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: LOG_MIN_BYTES,
    maxWrite: LOG_MAX_WRITE,
    periodicFlush: LOG_FLUSH_MS,
  });
  // pino flushes an asynchronous destination at exit by itself, a synchronous one it does not:
  // the lines gathered since the last batch are written here, after a graceful shutdown's last
  // line or a crash's.
  process.once('exit', () => destination.flushSync());
  return pino(options, destination);
}
