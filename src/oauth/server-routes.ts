import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { OAuthError } from './oauth-error.js';
import type { OAuthCredentialResolver } from './credential-resolver.js';
import {
  INTROSPECT_PATH,
  JWKS_PATH,
  REVOKE_PATH,
  TOKEN_PATH,
  type ClientCredentials,
  type OAuthTokenService,
} from './token-service.js';

const FORM = 'application/x-www-form-urlencoded';

/** A form whose parameters each appear once (RFC 6749 §3.2); anything else is invalid_request. */
function parseForm(body: string): Record<string, string> {
  const form: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(body)) {
    if (name in form && name === 'resource')
      throw new OAuthError(
        'invalid_target',
        'A token is issued for one resource: give resource once and request a token per resource.',
      );
    if (name in form) throw new OAuthError('invalid_request', `${name} is given more than once.`);
    form[name] = value;
  }
  return form;
}

function credentials(request: FastifyRequest): ClientCredentials {
  const body = request.body as Record<string, string> | undefined;
  if (body === undefined || !(request.headers['content-type'] ?? '').startsWith(FORM))
    throw new OAuthError('invalid_request', `The request body must be ${FORM}.`);
  return { authorization: request.headers.authorization, form: body, dpop: request.headers.dpop };
}

/** Answers an OAuth error as RFC 6749 §5.2; anything else goes to the problem+json handler. */
function sendOAuthError(error: unknown, reply: FastifyReply): FastifyReply {
  if (!(error instanceof OAuthError)) throw error;
  return reply
    .code(error.status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...error.headers })
    .send(error.body);
}

const hidden = { hide: true } as const;
const publicRoute = { auth: { access: 'public' } } as const;
/**
 * The token, revocation and introspection endpoints authenticate the client on every request:
 * Idempotency-Key is not applied (a stored answer would go to whoever repeats the key and body
 * from the same address, whatever its credentials).
 */
const oauthEndpoint = { auth: { access: 'public' }, idempotency: false } as const;

/** The authorization server: metadata, JWKS, token, revocation and introspection endpoints. */
export const oauthServerRoutes: FastifyPluginAsync<{
  tokens: OAuthTokenService;
  authority: OAuthCredentialResolver;
}> = async (app, { tokens, authority }) => {
  app.addContentTypeParser(
    FORM,
    { parseAs: 'string', bodyLimit: 65_536 },
    (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(error, reply);
    // Text the database cannot hold (a NUL byte: the body guard) is answered as RFC 6749
    // says: in client_id no client can have it (invalid_client), elsewhere invalid_request.
    if (error instanceof AppError && error.code === 'INVALID_BODY') {
      const [param] = (error.extensions.invalid_params ?? []) as { name?: string }[];
      return sendOAuthError(
        param?.name === 'client_id'
          ? new OAuthError('invalid_client', `No client has this id: ${error.detail}`, 401, {
              'www-authenticate': 'Bearer realm="salary-api", error="invalid_client"',
            })
          : new OAuthError('invalid_request', error.detail),
        reply,
      );
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (!(error instanceof AppError) && status !== undefined && status < 500)
      return sendOAuthError(new OAuthError('invalid_request', (error as Error).message), reply);
    throw error;
  });

  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: hidden, config: publicRoute },
    (_r, reply) => reply.header('cache-control', 'public, max-age=300').send(tokens.metadata()),
  );
  app.get(JWKS_PATH, { schema: hidden, config: publicRoute }, (_r, reply) =>
    reply.header('cache-control', 'public, max-age=60').send(authority.jwks()),
  );
  app.post(TOKEN_PATH, { schema: hidden, config: oauthEndpoint }, async (request, reply) => {
    const answer = await tokens.token(credentials(request), request.ip);
    // RFC 9449 §8.2: a fresh nonce with every answer to a DPoP request, for the next proof.
    const nonce = request.headers.dpop === undefined ? undefined : authority.dpop.nonceFor('token');
    if (nonce !== undefined) reply.header('dpop-nonce', nonce);
    return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(answer);
  });
  app.post(REVOKE_PATH, { schema: hidden, config: oauthEndpoint }, async (request, reply) => {
    await tokens.revoke(credentials(request), request.ip);
    return reply.header('cache-control', 'no-store').send();
  });
  app.post(INTROSPECT_PATH, { schema: hidden, config: oauthEndpoint }, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await tokens.introspect(credentials(request), request.ip)),
  );
};
