import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CODES, problemType, type InvalidParam } from '../errors/index.js';
import { isConnectionError } from '../store/index.js';
import { requestOrigin } from './origin.js';

export const PROBLEM_JSON = 'application/problem+json';
const DEPENDENCY_RETRY_AFTER = 5;

/** The base of the problem `type` URIs answered to a request. */
export function problemBaseOf(request: FastifyRequest): string | null {
  const decide = request.server.problemTypeBase;
  return decide === undefined ? requestOrigin(request) : decide(request);
}

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Per-route lists of accepted values, named in `invalid_params` when a parameter is wrong. */
export interface RouteAllowedValues {
  allowedValues?: Record<string, readonly (string | number)[]>;
}

/** Renders any error as RFC 9457 problem+json; 5xx details are logged, never shown. */
export function sendProblem(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appError = toAppError(error, request);
  if (appError.status >= 500 && appError.code !== 'SHUTTING_DOWN') {
    const level = appError.code === 'INTERNAL' ? 'error' : 'warn';
    request.log[level](
      { request_id: request.id, err: appError.cause ?? error, code: appError.code },
      'request failed',
    );
  }
  return reply
    .code(appError.status)
    .headers(appError.headers)
    .type(PROBLEM_JSON)
    .serializer(JSON.stringify)
    .send(problemDocument(appError, request.url, request.id, problemBaseOf(request)));
}

/**
 * Answers a refusal decided before any handler work (401, 403, 429) from a hook or a handler:
 * the problem document serialized once per error object and path (`problemJson`), no throw and
 * no trip through the error handler, so refusing costs no more than serving.
 */
export function sendRefusal(request: FastifyRequest, reply: FastifyReply, error: AppError): void {
  reply
    .code(error.status)
    .headers(error.headers)
    .type(PROBLEM_JSON)
    .send(problemJson(error, request.url, request.id, problemBaseOf(request)));
}

/** Longest client text (a path, a parser's message quoting it) an error document repeats. */
export const MAX_ECHO = 300;

/** `text` as an error repeats it: cut to MAX_ECHO characters, the cut marked. */
export function echoed(text: string): string {
  return text.length <= MAX_ECHO ? text : `${text.slice(0, MAX_ECHO)}…`;
}

/**
 * The RFC 9457 document of an error;
 * `base` is where its `type` page is (see problemBaseOf), '' for a path relative to the request.
 */
export function problemDocument(
  error: AppError,
  url: string,
  requestId: string,
  base: string | null,
): object {
  const type = problemType(error.code, base);
  const mark = url.indexOf('?');
  return {
    type,
    title: ERROR_CODES[error.code].title,
    status: error.status,
    detail: error.detail,
    instance: echoed(mark === -1 ? url : url.slice(0, mark)),
    code: error.code,
    request_id: requestId,
    ...(base === null ? {} : { doc_url: type }),
    ...error.extensions,
  };
}

/** Stands for the request id while a document is serialized; needs no escaping in JSON. */
const REQUEST_ID_MARK = 'request-id-5b0e6c1f9d2a4c7e';

/** The serialized document of an error and path, split around its request id. */
interface SerializedProblem {
  readonly instance: string;
  readonly base: string | null;
  readonly head: string;
  readonly tail: string;
}

const serialized = new WeakMap<AppError, SerializedProblem>();

/**
 * `JSON.stringify(problemDocument(error, url, requestId))`, with the document serialized once
 * per error object and path: a refusal thrown again and again (the unknown-credential 401, a
 * 429 reused within its second) then costs two string concatenations. The request id is the
 * server's own (`req_` and hex), which needs no escaping.
 */
export function problemJson(
  error: AppError,
  url: string,
  requestId: string,
  base: string | null,
): string {
  const mark = url.indexOf('?');
  const instance = mark === -1 ? url : url.slice(0, mark);
  let known = serialized.get(error);
  if (known === undefined || known.instance !== instance || known.base !== base) {
    const json = JSON.stringify(problemDocument(error, instance, REQUEST_ID_MARK, base));
    const at = json.indexOf(`"${REQUEST_ID_MARK}"`) + 1;
    known = {
      instance,
      base,
      head: json.slice(0, at),
      tail: json.slice(at + REQUEST_ID_MARK.length),
    };
    serialized.set(error, known);
  }
  return known.head + requestId + known.tail;
}

function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (isConnectionError(error)) {
    return new AppError(
      'DEPENDENCY_UNAVAILABLE',
      'A database the API depends on is unreachable; try again shortly.',
      {
        headers: { 'retry-after': DEPENDENCY_RETRY_AFTER },
        extensions: { retry_after: DEPENDENCY_RETRY_AFTER },
        cause: error,
      },
    );
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvError[] };
  if (Array.isArray(fastifyError.validation)) return fromValidation(fastifyError, request);
  const status = fastifyError.statusCode;
  if (status === 413)
    return new AppError(
      'PAYLOAD_TOO_LARGE',
      'The request body is larger than this endpoint accepts.',
    );
  if (status === 415) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('INVALID_BODY', fastifyError.message ?? 'The request could not be read.');
  }
  return new AppError(
    'INTERNAL',
    'An unexpected error occurred; it has been logged with the request id.',
    {
      cause: error,
    },
  );
}

/** The reason of a text over its schema's `maxLength`, as every form and route states it. */
export const tooLong = (limit: number): string => `is too long (at most ${limit} characters)`;

/** At most this many entries in `invalid_params`. */
const MAX_INVALID_PARAMS = 20;

function fromValidation(
  error: { validation?: AjvError[]; validationContext?: string },
  request: FastifyRequest,
): AppError {
  const config = request.routeOptions.config as RouteAllowedValues | undefined;
  const allowedFor = config?.allowedValues ?? {};
  const source = (error.validationContext ?? 'querystring') as
    'querystring' | 'body' | 'params' | 'headers';
  const inputs = {
    querystring: request.query,
    body: request.body,
    params: request.params,
    headers: request.headers,
  };
  const input = (inputs[source] ?? {}) as Record<string, unknown>;
  const params = new Map<string, InvalidParam>();
  for (const e of error.validation ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    const name =
      e.keyword === 'required'
        ? String(e.params.missingProperty)
        : e.keyword === 'additionalProperties'
          ? String(e.params.additionalProperty)
          : e.instancePath.replace(/^\//, '').split('/')[0] || '(body)';
    if (params.has(name)) continue;
    const value = input[name];
    let reason: string;
    let allowed = allowedFor[name];
    if (e.keyword === 'required') reason = 'is required';
    else if (e.keyword === 'additionalProperties') {
      reason = 'is not a parameter of this endpoint';
      allowed = Object.keys(
        (request.routeOptions.schema?.[source] as { properties?: object } | undefined)
          ?.properties ?? {},
      );
    } else if (Array.isArray(value) && source === 'querystring') reason = 'must be given only once';
    else if (e.keyword === 'enum') {
      reason = `${quoted(value)} is not one of the allowed values`;
      allowed = e.params.allowedValues as string[];
    } else if (e.keyword === 'pattern') reason = `${quoted(value)} is not a valid ${name}`;
    else if (e.keyword === 'maxLength') {
      reason = tooLong(Number(e.params.limit));
    } else reason = `${quoted(value)} ${e.message ?? 'is invalid'}`;
    params.set(name, allowed === undefined ? { name, reason } : { name, reason, allowed });
  }
  // A body of thousands of unknown members names the first few, not all: the answer to a bad
  // request stays small whatever its size.
  const all = [...params.values()];
  const list = all.slice(0, MAX_INVALID_PARAMS);
  const more = all.length > list.length ? ` (and ${all.length - list.length} more)` : '';
  if (source === 'body') {
    return new AppError(
      'INVALID_BODY',
      `The request body is invalid: ${list.map((p) => `${p.name} ${p.reason}`).join('; ')}${more}.`,
      {
        extensions: { invalid_params: list },
      },
    );
  }
  return AppError.invalidParams(list);
}

/** A client's value as quoted in a problem's text: control characters replaced, at most 40 characters. */
export function quoted(value: unknown): string {
  if (value === undefined) return 'the value';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // eslint-disable-next-line no-control-regex -- control characters are what is being replaced
  const printable = text.replace(/[\u0000-\u001f\u007f]/g, '�');
  return `'${printable.length > 40 ? `${printable.slice(0, 40)}…` : printable}'`;
}
