import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SCOPES } from '../auth/index.js';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import type { OAuthClientService } from './client-service.js';
import {
  NEW_OAUTH_CLIENT_EXAMPLE,
  OAUTH_CLIENT_EXAMPLE,
  OAUTH_CLIENT_LIST_EXAMPLE,
  ROTATED_OAUTH_CLIENT_EXAMPLE,
} from './examples.js';
import { AUTH_METHODS } from './token-service.js';

const Jwks = Type.Object(
  {
    keys: Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1, maxItems: 10 }),
  },
  { description: 'The public keys a private_key_jwt client signs its assertions with (RFC 7517).' },
);
const Scopes = Type.Array(StringEnum(SCOPES), {
  minItems: 1,
  maxItems: SCOPES.length,
  uniqueItems: true,
});
const Allowlist = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 });

export const OAuthClientSchema = Type.Object(
  {
    id: Type.String(),
    client_id: Type.String({ description: 'The identifier the client authenticates with.' }),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    allowlist: Type.Array(Type.String()),
    token_endpoint_auth_method: StringEnum(AUTH_METHODS),
    jwks: Type.Union([Jwks, Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'After a rotation: until when the previous secret still works.',
    }),
    dpop_bound: Type.Boolean({
      description:
        'Every token of this client is sender-constrained with DPoP (RFC 9449): a token request without a DPoP proof is refused.',
    }),
  },
  { $id: 'OAuthClient', examples: [OAUTH_CLIENT_EXAMPLE] },
);

export const NewOAuthClientSchema = Type.Object(
  {
    ...OAuthClientSchema.properties,
    client_secret: Type.Union([Type.String(), Type.Null()], {
      description: 'Shown only in this response (null for private_key_jwt); stored as a hash.',
    }),
  },
  { $id: 'NewOAuthClient', examples: [NEW_OAUTH_CLIENT_EXAMPLE] },
);

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Scopes,
    allowlist: Type.Optional(Allowlist),
    token_endpoint_auth_method: Type.Optional(StringEnum(AUTH_METHODS)),
    jwks: Type.Optional(Jwks),
    dpop_bound: Type.Optional(
      Type.Boolean({
        description:
          'Require DPoP (RFC 9449) for every token of this client (default false: DPoP is then optional).',
      }),
    ),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Scopes),
    allowlist: Type.Optional(Allowlist),
    jwks: Type.Optional(Jwks),
    dpop_bound: Type.Optional(
      Type.Boolean({
        description:
          'Require DPoP (RFC 9449) for every token of this client (default false: DPoP is then optional).',
      }),
    ),
  },
  { additionalProperties: false },
);
const Params = Type.Object({ id: Type.String({ pattern: '^ocl_[A-Za-z0-9_-]{1,40}$' }) });

/** Managing an account's OAuth clients (Enterprise). */
export const oauthClientRoutes: FastifyPluginAsyncTypebox<{ clients: OAuthClientService }> = async (
  app,
  { clients },
) => {
  const tags = ['OAuth clients'];
  const read = { auth: { access: 'account', scope: 'oauth:read' } } as const;
  const write = { auth: { access: 'account', scope: 'oauth:write' } } as const;

  app.post(
    '/api/v1/oauth/clients',
    {
      schema: {
        operationId: 'createOAuthClient',
        tags,
        summary: 'Register an OAuth client (client credentials)',
        description:
          'Enterprise. At most 100 per account; they do not count against API keys. The secret is in this response only.',
        body: CreateBody,
        response: { 201: Type.Ref('NewOAuthClient'), ...problemResponses(400, 401, 403, 409) },
      },
      config: write,
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await clients.create(
            request.principal,
            request.body as Parameters<OAuthClientService['create']>[1],
            request.ip,
          ),
        ),
  );

  app.get(
    '/api/v1/oauth/clients',
    {
      schema: {
        operationId: 'listOAuthClients',
        tags,
        summary: 'List OAuth clients (never the secrets)',
        description: 'Every live client of the account with its scopes, allowlist and auth method.',
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('OAuthClient')) },
            { examples: [OAUTH_CLIENT_LIST_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => ({ data: await clients.list(request.principal) }),
  );

  app.get(
    '/api/v1/oauth/clients/:id',
    {
      schema: {
        operationId: 'getOAuthClient',
        tags,
        summary: 'One OAuth client',
        description: 'Another account’s client is 404.',
        params: Params,
        response: { 200: Type.Ref('OAuthClient'), ...problemResponses(400, 401, 403, 404) },
      },
      config: read,
    },
    async (request) => clients.get(request.principal, request.params.id),
  );

  app.patch(
    '/api/v1/oauth/clients/:id',
    {
      schema: {
        operationId: 'updateOAuthClient',
        tags,
        summary: 'Rename a client, change its scopes, allowlist or keys',
        description:
          'Tokens already issued keep the scopes they were issued with until they expire.',
        params: Params,
        body: UpdateBody,
        response: { 200: Type.Ref('OAuthClient'), ...problemResponses(400, 401, 403, 404) },
      },
      config: write,
    },
    async (request) =>
      clients.update(
        request.principal,
        request.params.id,
        request.body as Parameters<OAuthClientService['update']>[2],
        request.ip,
      ),
  );

  app.delete(
    '/api/v1/oauth/clients/:id',
    {
      schema: {
        operationId: 'deleteOAuthClient',
        tags,
        summary: 'Delete a client',
        description:
          'Every token it holds stops working at once on this instance and within a second everywhere.',
        params: Params,
        response: { 204: Type.Null(), ...problemResponses(400, 401, 403, 404) },
      },
      config: write,
    },
    async (request, reply) => {
      await clients.remove(request.principal, request.params.id, request.ip);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/oauth/clients/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateOAuthClientSecret',
        tags,
        summary: 'Rotate a client secret',
        description: 'The previous secret keeps working for 24 hours.',
        params: Params,
        response: {
          201: jsonAnswer(Type.Ref('NewOAuthClient'), ROTATED_OAUTH_CLIENT_EXAMPLE),
          ...problemResponses(400, 401, 403, 404, 409),
        },
      },
      config: write,
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await clients.rotateSecret(request.principal, request.params.id, request.ip)),
  );
};
