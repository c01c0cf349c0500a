/**
 * OAuth rows of the lookup bench: an access token for the Enterprise account (a client made
 * with its API key, one client_secret_basic token request), and the prefix of the random
 * JWT-shaped bearer flood.
 */
import { BenchFailure } from './failure.js';

/**
 * A header and claims a token of ours could have (ES256, at+jwt) and a kid no key has: with a
 * different random signature per request (randomTokenScript adds 43 characters), each token is
 * new, so what is measured is the refusal before any crypto, not the refused-token cache.
 */
// {"alg":"ES256","typ":"at+jwt","kid":"bench-unknown"} . {"sub":"ocl_bench"} .
export const RANDOM_JWT_PREFIX =
  'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImJlbmNoLXVua25vd24ifQ.eyJzdWIiOiJvY2xfYmVuY2gifQ.' as const;

/** A one-hour access token (salary:read) of a client the Enterprise key creates. */
export async function oauthAccessToken(baseUrl: string, enterpriseKey: string): Promise<string> {
  const created = await fetch(`${baseUrl}/api/v1/oauth/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${enterpriseKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['salary:read'] }),
  });
  if (created.status !== 201)
    throw new BenchFailure(`OAuth client create: ${created.status} ${await created.text()}`);
  const client = (await created.json()) as { client_id: string; client_secret: string };
  const issued = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (issued.status !== 200)
    throw new BenchFailure(`OAuth token: ${issued.status} ${await issued.text()}`);
  return ((await issued.json()) as { access_token: string }).access_token;
}
