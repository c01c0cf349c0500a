import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SCOPES } from '../auth/index.js';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { KEY_MODES, type KeyMode } from './key-format.js';
import {
  KEY_EXAMPLE,
  KEY_LIST_EXAMPLE,
  KEY_ROTATION_EXAMPLE,
  NEW_KEY_EXAMPLE,
  REVOKED_KEY_EXAMPLE,
} from './examples.js';
import type { KeyService } from './service.js';

export const KeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
    mode: StringEnum<KeyMode>(KEY_MODES, {
      description:
        'live (sk_live_…) or test (sk_test_…): a test key reads the same figures outside quota, usage and billing, at 30 requests a minute and 1,000 a day per account; see the test-mode guide.',
    }),
    scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'null: every scope.',
    }),
    allowlist: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    status: StringEnum(['active', 'expiring', 'expired', 'revoked']),
  },
  { $id: 'ApiKey', examples: [KEY_EXAMPLE] },
);

export const NewKeySchema = Type.Object(
  {
    ...KeySchema.properties,
    key: Type.Union([Type.String(), Type.Null()], {
      description: 'The secret key, shown only in this response (null in an idempotent replay).',
    }),
  },
  {
    $id: 'NewApiKey',
    examples: [NEW_KEY_EXAMPLE],
  },
);

/** A key's name: what the API and the dashboard's forms accept. */
export const KeyNameSchema = Type.String({ minLength: 1, maxLength: 100 });

const KeyBody = Type.Object(
  {
    name: Type.Optional(KeyNameSchema),
    mode: Type.Optional(
      StringEnum<KeyMode>(KEY_MODES, {
        default: 'live',
        description:
          'test: an sk_test_… key that reads figures only, outside quota, usage and billing, 30 requests a minute and 1,000 a day per account. Fixed for the key’s life.',
      }),
    ),
    scopes: Type.Optional(
      Type.Array(StringEnum(SCOPES), {
        minItems: 1,
        maxItems: SCOPES.length,
        uniqueItems: true,
        description: 'Enterprise only.',
      }),
    ),
    allowlist: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 100,
        description: 'Business and Enterprise.',
      }),
    ),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    name: Type.Optional(KeyNameSchema),
    allowlist: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);
const Params = Type.Object({ id: Type.String({ pattern: '^key_[A-Za-z0-9_-]{1,40}$' }) });

export const keyRoutes: FastifyPluginAsyncTypebox<{ keys: KeyService }> = async (app, { keys }) => {
  const tags = ['API keys'];
  const read = { auth: { access: 'account', scope: 'keys:read' } } as const;
  const write = { auth: { access: 'account', scope: 'keys:write' } } as const;

  app.post(
    '/api/v1/keys',
    {
      schema: {
        operationId: 'createKey',
        tags,
        summary: 'Create an API key',
        description:
          'Developer: 1 active key, Business: 5, Enterprise: unlimited, with scopes; as many test-mode keys again (`mode: "test"`). The secret is in this response only; store it.',
        body: KeyBody,
        response: { 201: Type.Ref('NewApiKey'), ...problemResponses(400, 401, 403, 409) },
      },
      config: write,
    },
    async (request, reply) =>
      reply.code(201).send(await keys.create(request.principal, request.body, request.ip)),
  );

  app.get(
    '/api/v1/keys',
    {
      schema: {
        operationId: 'listKeys',
        tags,
        summary: 'List API keys (never the secrets)',
        description:
          'Every key of the account with prefix, name, scopes, creation, last use and status.',
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('ApiKey')) },
            { examples: [KEY_LIST_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => ({ data: await keys.list(request.principal.accountId as string) }),
  );

  app.get(
    '/api/v1/keys/:id',
    {
      schema: {
        operationId: 'getKey',
        tags,
        summary: 'One API key',
        description: 'Another account’s key is 404.',
        params: Params,
        response: { 200: Type.Ref('ApiKey'), ...problemResponses(400, 401, 403, 404) },
      },
      config: read,
    },
    async (request) => keys.get(request.principal.accountId as string, request.params.id),
  );

  app.patch(
    '/api/v1/keys/:id',
    {
      schema: {
        operationId: 'updateKey',
        tags,
        summary: 'Rename a key or set its IP allowlist',
        description: 'Allowlists need Business or Enterprise.',
        params: Params,
        body: UpdateBody,
        response: { 200: Type.Ref('ApiKey'), ...problemResponses(400, 401, 403, 404) },
      },
      config: write,
    },
    async (request) => keys.update(request.principal, request.params.id, request.body, request.ip),
  );

  app.delete(
    '/api/v1/keys/:id',
    {
      schema: {
        operationId: 'revokeKey',
        tags,
        summary: 'Revoke a key',
        description:
          'The key stops working at once on this instance and within a second everywhere.',
        params: Params,
        response: {
          200: jsonAnswer(Type.Ref('ApiKey'), REVOKED_KEY_EXAMPLE),
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: write,
    },
    async (request) => keys.revoke(request.principal, request.params.id, request.ip),
  );

  app.post(
    '/api/v1/keys/:id/rotate',
    {
      schema: {
        operationId: 'rotateKey',
        tags,
        summary: 'Rotate a key',
        description:
          'Issues a new key with the same name, scopes and allowlist; the old key keeps working for 24 hours, then expires.',
        params: Params,
        response: {
          201: Type.Object(
            { key: Type.Ref('NewApiKey'), previous: Type.Ref('ApiKey') },
            { examples: [KEY_ROTATION_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 404, 409),
        },
      },
      config: write,
    },
    async (request, reply) =>
      reply.code(201).send(await keys.rotate(request.principal, request.params.id, request.ip)),
  );
};
