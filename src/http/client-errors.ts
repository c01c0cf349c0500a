import type { FastifyInstance } from 'fastify';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CODES, problemType, type ErrorCode } from '../errors/index.js';
import type { AccessLog } from './access-log.js';
import { PROBLEM_JSON } from './problem.js';

/** How long a client has to send a whole request, headers and body (node's requestTimeout). */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How often node looks for requests past REQUEST_TIMEOUT_MS. Both are given to node's server
 * when it is made (its headers timeout is derived from them then): with node's own defaults
 * (a check every 30 s, headers within 60 s) a trickled request stayed open up to 60 s.
 */
export const TIMEOUT_CHECK_MS = 1_000;

/** What node's HTTP parser refused, as one of the API's error codes with its detail. */
function refusal(error: NodeJS.ErrnoException & { reason?: unknown }): {
  code: ErrorCode;
  detail: string;
} {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      code: 'REQUEST_TIMEOUT',
      detail: `The request was not received in full within ${REQUEST_TIMEOUT_MS / 1000} seconds.`,
    };
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return {
      code: 'HEADERS_TOO_LARGE',
      detail: 'The request headers are over 16 KiB in all.',
    };
  // llhttp's reasons are its own fixed sentences ("Invalid method encountered"), not client text.
  const reason = typeof error.reason === 'string' ? error.reason : 'it could not be parsed';
  return {
    code: 'MALFORMED_REQUEST',
    detail: `The request is not valid HTTP/1.1: ${reason.replace(/\.$/, '')}.`,
  };
}

/**
 * The answer node is to write next on `socket` to a request read whole before the unreadable
 * bytes. The answer to a request still arriving (a body past the request timeout) is not waited
 * for: that request is the one refused.
 */
function answerInFlight(socket: Socket): ServerResponse | undefined {
  const message = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return message !== null &&
    message !== undefined &&
    !message.writableFinished &&
    message.req.complete
    ? message
    : undefined;
}

/**
 * Calls `then` once every request read before on `socket` has been answered. Node answers
 * pipelined requests one after the other: when an answer finishes it hands the socket to the
 * next one waiting (its own 'finish' listener, registered first), so after each 'finish' the
 * socket is looked at again.
 */
function afterAnswersInFlight(socket: Socket, then: () => void): void {
  const answer = answerInFlight(socket);
  if (answer === undefined) {
    then();
    return;
  }
  const next = (): void => {
    answer.off('finish', next);
    answer.off('close', next);
    setImmediate(() => afterAnswersInFlight(socket, then));
  };
  answer.on('finish', next);
  answer.on('close', next);
}

/**
 * Fastify's `clientErrorHandler`: what a connection whose bytes are not a readable HTTP request
 * is answered (no route was asked, so no hook runs), a problem document like every other
 * answer, then the connection is closed. Requests pipelined before the unreadable one are
 * answered first, in order (node's parser reads the whole chunk before any handler answers),
 * and the problem is written after them. Without a request there is no `instance`, request id
 * or host, so `type` is a path. Each answer written has its access line in `accessLog` (when
 * the access log is on): its status and the peer's address, and the method and URL of a request
 * whose headers were read before its body ran out of time.
 */
export function clientErrorHandler(
  accessLog: AccessLog | undefined,
): (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) => void {
  return function handleClientError(this: FastifyInstance, error, socket) {
    // A reset connection is gone: nothing to answer (node's own rule).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { code, detail } = refusal(error);
    const { status, title } = ERROR_CODES[code];
    this.log.debug({ err: error, code }, 'unreadable request refused');
    afterAnswersInFlight(socket, () => {
      if (socket.destroyed) return;
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const body = JSON.stringify({ type: problemType(code, ''), title, status, detail, code });
      // end, not write then destroy: the answers before it may still be in the socket's buffer.
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_JSON}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        () => socket.destroy(),
      );
      const unread = requestStillArriving(socket);
      accessLog?.write({
        requestId: null,
        method: unread?.method ?? null,
        url: unread?.url ?? null,
        status,
        ms: null,
        ip: socket.remoteAddress ?? '',
        accountId: null,
      });
    });
  };
}

/** The request on `socket` whose headers were read and whose body was still arriving. */
function requestStillArriving(socket: Socket): IncomingMessage | undefined {
  const message = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return message !== null && message !== undefined && !message.req.complete
    ? message.req
    : undefined;
}
