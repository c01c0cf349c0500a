import { Writable } from 'node:stream';
import pino from 'pino';

/** A pino logger at `level` whose lines are kept, parsed, in `lines`. */
export function capturedLogger(level: pino.Level = 'info'): {
  logger: pino.Logger;
  lines: Record<string, unknown>[];
} {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
