import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES } from '../errors/index.js';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      format: 'uri',
      description: 'Stable URI identifying the kind of problem.',
    }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    code: Type.String({ description: 'Stable machine-readable code, see docs/errors.md.' }),
    request_id: Type.String(),
    doc_url: Type.String({ format: 'uri' }),
    invalid_params: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          reason: Type.String(),
          allowed: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
        }),
      ),
    ),
    required_plan: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    retry_after: Type.Optional(Type.Integer()),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details.' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'A parameter is missing, malformed or not one of the allowed values.',
  401: 'The Authorization header is malformed or names an unknown, revoked or expired key.',
  402: 'An invoice is overdue; pay it before subscribing to a paid plan again.',
  403: 'The feature, format or year is not included in the plan (`required_plan` names the lowest plan that has it).',
  404: 'No data for the query.',
  406: 'The Accept header names no media type this endpoint produces.',
  410: 'The resource was withdrawn; the problem names its replacement when there is one.',
  416: 'The Range starts beyond the end; `Content-Range: bytes */<length>` gives the length.',
  429: 'The plan’s request limit is reached; Retry-After says when requests succeed again.',
  503: 'A dependency is unavailable; retry after Retry-After seconds.',
};

/** OpenAPI responses for the given error statuses, all problem+json. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const known = new Set<number>(Object.values(ERROR_CODES).map((e) => e.status));
  return Object.fromEntries(
    statuses
      .filter((s) => known.has(s))
      .map((s) => [
        s,
        {
          description: DESCRIPTIONS[s] ?? 'Error.',
          content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
        },
      ]),
  );
}

/**
 * A JSON answer of a shared schema (a `$ref`), shown with an example of this operation's own:
 * the schema's example is what another operation answers (a revoked key, a queued run).
 */
export function jsonAnswer<T extends TSchema>(schema: T, example: unknown) {
  return { content: { 'application/json': { schema, example } } } as const;
}
