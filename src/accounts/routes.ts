import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listAudit, recordAudit } from '../audit/index.js';
import { allowlistProblems } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import type { Clock } from '../lib/clock.js';
import type { CredentialCache } from '../keys/index.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { updateAccount } from './repo.js';
import {
  AccountSchema,
  AllowlistBodySchema,
  AuditEntrySchema,
  CredentialsSchema,
  SessionSchema,
} from './schemas.js';
import { publicAccount, type AccountService } from './service.js';

export interface AccountRoutesOptions {
  accounts: AccountService;
  db: Db;
  clock: Clock;
  cache: CredentialCache;
  plans: Readonly<Record<PlanId, Plan>>;
}

export const accountRoutes: FastifyPluginAsyncTypebox<AccountRoutesOptions> = async (app, opts) => {
  const { accounts, db, clock, cache, plans } = opts;
  const tags = ['Account'];

  app.post(
    '/api/v1/accounts',
    {
      schema: {
        operationId: 'signUp',
        tags,
        summary: 'Create an account (Free plan)',
        description:
          'Signs up with e-mail and password and returns a session token for account management.',
        body: CredentialsSchema,
        response: {
          201: Type.Object({ account: Type.Ref('Account'), session: Type.Ref('Session') }),
          ...problemResponses(400, 409, 413, 415),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await accounts.signUp(request.body, request.ip)),
  );

  app.post(
    '/api/v1/sessions',
    {
      schema: {
        operationId: 'logIn',
        tags,
        summary: 'Log in: a session token',
        description:
          'Failed attempts are throttled per address and per account (429 with Retry-After).',
        body: CredentialsSchema,
        response: { 201: Type.Ref('Session'), ...problemResponses(400, 401, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await accounts.logIn(request.body, request.ip)),
  );

  app.delete(
    '/api/v1/sessions/current',
    {
      schema: {
        operationId: 'logOut',
        tags,
        summary: 'Log out: end the session whose token is used',
        description: 'The session token stops working at once.',
        response: { 204: Type.Null({ description: 'Logged out.' }), ...problemResponses(400, 401) },
      },
      config: { account: true },
    },
    async (request, reply) => {
      if (request.principal.sessionId === null)
        throw AppError.invalidParams([{ name: 'Authorization', reason: 'is not a session token' }]);
      await accounts.logOut(request.principal.sessionId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/account',
    {
      schema: {
        operationId: 'getAccount',
        tags,
        summary: 'The account',
        description: 'The account of the session or API key used.',
        response: { 200: Type.Ref('Account'), ...problemResponses(401) },
      },
      config: { account: true },
    },
    async (request) => publicAccount(await accounts.get(request.principal.accountId as string)),
  );

  app.put(
    '/api/v1/account/allowlist',
    {
      schema: {
        operationId: 'setAccountAllowlist',
        tags,
        summary: 'Set the account IP allowlist (Business and Enterprise)',
        description:
          'When the list is not empty, API requests from other addresses are refused with 403. Keys may add their own list.',
        body: AllowlistBodySchema,
        response: { 200: Type.Ref('Account'), ...problemResponses(400, 401, 403) },
      },
      config: { account: true, scope: 'account:write' },
    },
    async (request) => {
      const { principal } = request;
      const list = request.body.allowlist;
      assertPlanHas(plans, principal.plan, (p) => p.ipAllowlist, 'IP allowlists');
      const problems = allowlistProblems(list);
      if (problems.length > 0)
        throw AppError.invalidParams([{ name: 'allowlist', reason: problems.join('; ') }]);
      const at = new Date(clock.now());
      const account = await db.transaction(async (tx) => {
        const updated = await updateAccount(
          tx,
          principal.accountId as string,
          { allowlist: list },
          at,
        );
        await recordAudit(tx, {
          accountId: updated.id,
          actor: principal.keyId !== null ? `key:${principal.keyId}` : `account:${updated.id}`,
          action: 'accounts.set_allowlist',
          data: { allowlist: list },
          ip: request.ip,
          at,
        });
        return updated;
      });
      cache.applyAccount(account);
      return publicAccount(account);
    },
  );

  app.get(
    '/api/v1/account/audit-log',
    {
      schema: {
        operationId: 'listAuditLog',
        tags,
        summary: 'Security events of the account (newest first)',
        description:
          'Sign-ups, log-ins and failed log-ins, keys created, rotated and revoked, allowlist and plan changes. The log is hash-chained (tamper-evident).',
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(AuditEntrySchema) }),
          ...problemResponses(400, 401),
        },
      },
      config: { account: true },
    },
    async (request) => ({
      data: (
        await listAudit(db, request.principal.accountId as string, request.query.limit ?? 100)
      ).map(({ account_id: _, ...entry }) => entry),
    }),
  );
};

export { AccountSchema, SessionSchema };
