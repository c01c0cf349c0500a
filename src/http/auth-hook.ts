import type { FastifyRequest } from 'fastify';
import { addressBucket, type CredentialResolver, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Plan } from '../plans/index.js';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/;

function unauthenticated(detail: string, error: 'invalid_request' | 'invalid_token'): AppError {
  return new AppError('UNAUTHENTICATED', detail, {
    headers: { 'www-authenticate': `Bearer realm="salary-api", error="${error}"` },
  });
}

/**
 * Decides who is calling. No Authorization header: an anonymous Free caller, counted by
 * address. A header that is not a known credential is always 401, never silently Free.
 */
export function authenticator(credentials: CredentialResolver, free: Plan) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined) {
      request.principal = {
        plan: free,
        accountId: null,
        keyId: null,
        limitBucket: addressBucket(request.ip),
      } satisfies Principal;
      return;
    }
    const match = BEARER.exec(header);
    if (match === null) {
      throw unauthenticated(
        'The Authorization header must be "Bearer <API key>".',
        'invalid_request',
      );
    }
    const principal = await credentials.resolve(match[1] as string, request.ip);
    if (principal === undefined) {
      throw unauthenticated(
        'The API key is not valid: it is unknown, revoked or expired.',
        'invalid_token',
      );
    }
    request.principal = principal;
  };
}
