import pino from 'pino';

/**
 * Bytes gathered before a write (about 150 access lines: one system call per 150 requests
 * under load); a line waits at most FLUSH_EVERY_MS when traffic is low.
 */
const MIN_WRITE_BYTES = 32 * 1024;
/** sonic-boom writes at most this much at once; it must exceed MIN_WRITE_BYTES. */
const MAX_WRITE_BYTES = 64 * 1024;
const FLUSH_EVERY_MS = 250;

/**
 * Standard output written asynchronously in batches (pino's asynchronous destination): a log
 * line costs its formatting, not a system call. pino flushes what is left when the process
 * exits (also after an uncaught exception); a SIGKILL loses at most the unwritten batch.
 */
export function bufferedStdout(): pino.DestinationStream {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: MIN_WRITE_BYTES,
    maxWrite: MAX_WRITE_BYTES,
  });
  const timer = setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Ended (the process is exiting): pino has flushed it.
    }
  }, FLUSH_EVERY_MS);
  timer.unref();
  return destination;
}
