import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { MODE_HEADER } from '../http/auth-hook.js';
import { STREAM_ABOVE_ROWS, type RenderPool } from '../formats/index.js';
import type { SpendRouteQuota } from '../http/quota.js';
import type { Format } from '../plans/index.js';
import { withSchemaFields, type CustomSchema } from './custom-schema.js';
import type { DownloadGate } from '../http/download-gate.js';
import type { FileCache } from './file-cache.js';
import { negotiateFormat } from './format.js';
import {
  JSON_TYPE,
  renderSalaryFile,
  marked,
  renderSalaryJson,
  sendRendered,
  sendSalaryResult,
  type Labelling,
} from './render.js';
import type { SalaryMeta } from './schemas.js';
import type { PreparedSelection, SalaryService, Selection } from './service.js';

export interface SalaryResponderOptions {
  salary: SalaryService;
  spendRouteQuota: SpendRouteQuota;
  downloads: DownloadGate;
  /** Writes large files in worker threads. */
  renderer: RenderPool;
  /** Large files already written, per release. */
  files: FileCache;
  /** A white-label account's labelling (null: this service's own). */
  labelling?: (accountId: string | null) => Labelling | null;
}

/** Answers a selection in a format: every salary route and every custom endpoint. */
export interface SalaryResponder {
  /** Negotiates the format (format= or Accept), then answers; synchronous on the cached path. */
  serve(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection & { format?: Format },
    filename: (meta: SalaryMeta) => string,
  ): void | Promise<void>;
  /** Answers in the format given. */
  serveSelection(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection,
    format: Format,
    filename: (meta: SalaryMeta) => string,
  ): Promise<void>;
}

const TEST_MODE_TOO_LARGE = new AppError(
  'TEST_MODE_NOT_ALLOWED',
  `A test-mode key is answered at most ${STREAM_ABOVE_ROWS} records a request; narrow the query or use a live key.`,
  {
    headers: { [MODE_HEADER]: 'test' },
    extensions: { mode: 'test', max_records: STREAM_ABOVE_ROWS },
  },
);

export function createSalaryResponder(opts: SalaryResponderOptions): SalaryResponder {
  const { salary, spendRouteQuota, downloads, renderer, files } = opts;
  const labellingOf = opts.labelling ?? (() => null);

  /**
   * Select (validation and plan checks), spend quota, then answer in the negotiated format.
   * A cached standard JSON body with an in-process limiter is answered synchronously (no
   * promise on the hot path); everything else returns a promise.
   */
  function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection & { format?: Format },
    filename: (meta: SalaryMeta) => string,
  ): void | Promise<void> {
    const format = negotiateFormat(selection.format, request.headers.accept);
    // A pinned release: found in memory (answered as the active release is, its standard JSON
    // bodies cached per release too), or read first.
    const pinned = salary.pin(selection, request.principal);
    if (pinned instanceof Promise)
      return pinned.then((p) => answer(request, reply, p, format, filename));
    return answer(request, reply, pinned, format, filename);
  }

  function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection,
    format: Format,
    filename: (meta: SalaryMeta) => string,
  ): void | Promise<void> {
    const feature = request.routeOptions.config.planFeature;
    const schema = request.principal.responseSchema;
    // The cached bodies are live answers: a test-mode key's carry its mark and are built.
    if (
      format === 'json' &&
      schema === null &&
      request.principal.mode === undefined &&
      labellingOf(request.principal.accountId) === null
    ) {
      const body = salary.standardJson(selection, request.principal, { feature });
      if (body !== undefined)
        return spendRouteQuota(request, reply, () => {
          reply.type(JSON_TYPE).send(body);
        });
    }
    return serveSelection(request, reply, selection, format, filename);
  }

  async function serveSelection(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection,
    format: Format,
    filename: (meta: SalaryMeta) => string,
  ): Promise<void> {
    const feature = request.routeOptions.config.planFeature;
    const schema = request.principal.responseSchema;
    const labelling = labellingOf(request.principal.accountId);
    const fields = withSchemaFields(selection.fields, schema);
    // release= or as_of=: the kept release it names, read before anything is built.
    const pinned = await salary.pin(selection, request.principal);
    const prepared = salary.prepare({ ...pinned, fields }, request.principal, format, {
      feature,
    });
    if (prepared.expectedRows > STREAM_ABOVE_ROWS) {
      // Test keys read figures a few at a time: never the archive-sized answers of the live path.
      if (request.principal.mode === 'test') throw TEST_MODE_TOO_LARGE;
      return serveLarge(request, reply, prepared, format, filename, schema, labelling);
    }
    const result = marked(prepared.build(), request.principal.mode === 'test');
    await spendRouteQuota(request, reply, () =>
      sendSalaryResult(reply, result, format, filename(result.meta), schema, labelling),
    );
  }

  /**
   * A large result: from the per-release cache, or written once (a file in a worker thread, JSON
   * a chunk per turn of the event loop) while the main thread goes on serving. Only a file still
   * to be written passes the download gate; refused there, a request costs nothing and spends
   * no quota.
   */
  async function serveLarge(
    request: FastifyRequest,
    reply: FastifyReply,
    prepared: PreparedSelection,
    format: Format,
    filename: (meta: SalaryMeta) => string,
    schema: CustomSchema | null,
    labelling: Labelling | null,
  ): Promise<void> {
    const test = request.principal.mode === 'test';
    const key = `${request.routeOptions.url}|${format}|${prepared.key}|${schema === null ? '' : JSON.stringify(schema.fields)}|${labelling === null ? '' : JSON.stringify(labelling)}${test ? '|test' : ''}`;
    const cached = files.get(prepared.release, key);
    const leave =
      cached === undefined && format !== 'json'
        ? await downloads.enter(request.principal.limitBucket)
        : undefined;
    try {
      const result = cached === undefined ? marked(prepared.build(), test) : undefined;
      const write = () =>
        format === 'json'
          ? renderSalaryJson(result!, schema, labelling)
          : renderSalaryFile(renderer, result!, format, filename(result!.meta), schema, labelling);
      const file = await spendRouteQuota(
        request,
        reply,
        () => cached ?? files.getOrAdd(prepared.release, key, write),
      );
      if (file !== undefined) sendRendered(reply, file);
    } finally {
      leave?.();
    }
  }

  return { serve, serveSelection };
}
