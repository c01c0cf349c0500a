import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { renderTable } from '../formats/index.js';
import type { Format } from '../plans/index.js';
import type { SalaryResult } from './service.js';
import { salaryTable } from './table.js';

const STREAM_ABOVE = 500;
const CHUNK = 500;

/**
 * Sends a result as JSON (small results through the route's serializer, large ones streamed in
 * chunks of records) or as a named file in the chosen format.
 */
export async function sendSalaryResult(
  reply: FastifyReply,
  result: SalaryResult,
  format: Format,
  filenameBase: string,
): Promise<FastifyReply> {
  if (format === 'json') {
    if (result.data.length <= STREAM_ABOVE)
      return reply.send({ data: result.data, meta: result.meta });
    return reply.type('application/json; charset=utf-8').send(Readable.from(jsonChunks(result)));
  }
  const file = await renderTable(format, salaryTable(result), {
    base: filenameBase,
    root: 'salaries',
    attributes: { release: result.meta.release.version },
  });
  return reply
    .type(file.contentType)
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .send(file.body);
}

function* jsonChunks(result: SalaryResult): Generator<string> {
  yield '{"data":[';
  for (let i = 0; i < result.data.length; i += CHUNK) {
    const part = result.data.slice(i, i + CHUNK).map((r) => JSON.stringify(r));
    yield (i === 0 ? '' : ',') + part.join(',');
  }
  yield `],"meta":${JSON.stringify(result.meta)}}`;
}
