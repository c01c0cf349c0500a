import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors/index.js';

/**
 * How long, after SIGTERM is handled, requests already written on open connections are still
 * read and answered before idle connections are closed. While the event loop was blocked
 * (an Excel export), such a request sits unread in the socket and the connection looks idle:
 * closing idle connections at once would reset it. Timers run only once the loop is free, so
 * the drain starts counting after the block, and the loop's next turns read those requests.
 */
export const DRAIN_MS = 300;
const RETRY_AFTER_SECONDS = 1;

/** While the server closes, how often connections that have become idle are closed. */
const REAP_EVERY_MS = 50;

const SHUTTING_DOWN = new AppError(
  'SHUTTING_DOWN',
  'This instance is stopping; retry, and another instance answers.',
  {
    headers: { 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' },
    extensions: { retry_after: RETRY_AFTER_SECONDS },
  },
);

/**
 * A graceful shutdown, as the first hook of every request: while draining, requests are
 * answered as usual with `Connection: close`; once refusing, a request still arriving on an
 * open connection is answered 503 `SHUTTING_DOWN` (a problem document like any other, with its
 * request id), Retry-After and `Connection: close`, never reset. A keep-alive connection whose
 * request was in flight when the server began to close is closed once its response is out:
 * otherwise it would hold the server open until the shutdown timeout, whose forced exit resets
 * whatever is in flight then. The one place that knows the process is stopping.
 */
export class ShutdownGate {
  #state: 'open' | 'draining' | 'refusing' = 'open';

  /**
   * Registers the gate's hook before any other on `app`, and one on every answer: an answer
   * sent once the process is stopping (its request arrived before) says `Connection: close`
   * too, so its client does not send the next request on a connection about to be closed.
   */
  attach(app: FastifyInstance): void {
    app.addHook('onRequest', this.#hook);
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (this.#state !== 'open') reply.header('connection', 'close');
      done(null, payload);
    });
  }

  get state(): 'open' | 'draining' | 'refusing' {
    return this.#state;
  }

  readonly #hook: onRequestHookHandler = (_request, reply, done) => {
    if (this.#state === 'open') return done();
    if (this.#state === 'refusing') return done(SHUTTING_DOWN);
    reply.header('connection', 'close');
    done();
  };

  /** Answers on with `Connection: close` for `ms`, so requests already written are served. */
  async drain(ms = DRAIN_MS): Promise<void> {
    this.#state = 'draining';
    await sleep(ms);
  }

  /** Refuses every further request and closes connections as they become idle. */
  refuse(app: FastifyInstance): void {
    this.#state = 'refusing';
    const reaper = setInterval(() => app.server.closeIdleConnections(), REAP_EVERY_MS);
    reaper.unref();
    app.server.once('close', () => clearInterval(reaper));
  }
}
