import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { MAX_AUDIT_EXPORT, type AuditRow } from '../audit/index.js';
import { stringify } from 'csv-stringify/sync';
import { StringEnum } from '../lib/string-enum.js';
import { safeCell } from '../lib/csv-cell.js';
import { actorOf } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import type { Clock } from '../lib/clock.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { SCHEMA_SOURCE_FIELDS, schemaProblems } from '../salary/index.js';
import type { Principal } from '../auth/index.js';
import {
  AccountSchema,
  AllowlistBodySchema,
  AuditEntrySchema,
  ChainVerificationSchema,
  CredentialsSchema,
  PasswordChangeSchema,
  SessionSchema,
  SupportSchema,
  TotpChallengeSchema,
  TotpCodeBodySchema,
} from './schemas.js';
import { accountLifecycleRoutes } from './lifecycle-routes.js';
import {
  ACCOUNT_VIEW_EXAMPLE,
  ALLOWLIST_EXAMPLE,
  AUDIT_LOG_EXAMPLE,
  NO_RESPONSE_SCHEMA_EXAMPLE,
  RESPONSE_SCHEMA_EXAMPLE,
  SESSIONS_REVOKED_EXAMPLE,
  SIGN_UP_EXAMPLE,
} from './examples.js';
import { accountDeletionRoutes } from './deletion-routes.js';
import {
  publicAccount,
  type AccountRow,
  type AccountService,
  type ResponseSchema,
} from './service.js';

export interface AccountRoutesOptions {
  accounts: AccountService;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  /** The support channel and response target of an account's plan, shown with the account. */
  supportOf: (account: AccountRow) => Static<typeof SupportSchema>;
}

export const accountRoutes: FastifyPluginAsyncTypebox<AccountRoutesOptions> = async (app, opts) => {
  const { accounts, clock, plans } = opts;
  const tags = ['Account'];
  await app.register(accountLifecycleRoutes, { accounts });
  await app.register(accountDeletionRoutes, { accounts });

  app.post(
    '/api/v1/accounts',
    {
      schema: {
        operationId: 'signUp',
        tags,
        summary: 'Create an account (Free plan)',
        description:
          'Signs up with e-mail and password and returns a session token for account management. At most 10 sign-ups per address per hour (429 with Retry-After).',
        body: CredentialsSchema,
        response: {
          201: Type.Object(
            { account: Type.Ref('Account'), session: Type.Ref('Session') },
            { examples: [SIGN_UP_EXAMPLE] },
          ),
          ...problemResponses(400, 409, 413, 415, 429),
        },
      },
      config: { auth: { access: 'public' } },
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
          'Failed attempts are throttled per address and per account (429 with Retry-After). An account with two-factor sign-in on answers 200 with a challenge instead of a session: send it with a code to POST /api/v1/sessions/totp.',
        body: CredentialsSchema,
        response: {
          201: Type.Ref('Session'),
          200: TotpChallengeSchema,
          ...problemResponses(400, 401, 429),
        },
      },
      config: { auth: { access: 'public' } },
    },
    async (request, reply) => {
      const signed = await accounts.logIn(request.body, request.ip);
      return reply.code('totp_required' in signed ? 200 : 201).send(signed);
    },
  );

  app.post(
    '/api/v1/sessions/totp',
    {
      schema: {
        operationId: 'logInWithCode',
        tags,
        summary: 'Log in, second step: a code for the challenge',
        description:
          'The challenge of POST /api/v1/sessions with the current code of the authenticator app (or an unused recovery code) gives a session; each code works once. At most 5 wrong codes per account and 20 per address in 15 minutes (429 with Retry-After). A wrong code, a used one and an expired challenge are one 401.',
        body: TotpCodeBodySchema,
        response: { 201: Type.Ref('Session'), ...problemResponses(400, 401, 429) },
      },
      config: { auth: { access: 'public' } },
    },
    async (request, reply) =>
      reply.code(201).send(await accounts.logInWithCode(request.body, request.ip)),
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
      config: { auth: { access: 'account', scope: 'account:write' } },
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
        description:
          'The account of the session or API key used, with the support channel and response target of its plan (and the account manager of an Enterprise account).',
        response: {
          200: Type.Object(
            { ...AccountSchema.properties, support: SupportSchema },
            { examples: [ACCOUNT_VIEW_EXAMPLE] },
          ),
          ...problemResponses(401),
        },
      },
      config: { auth: { access: 'account', scope: 'account:read' } },
    },
    async (request) => {
      const account = await accounts.get(request.principal.accountId as string);
      return {
        ...publicAccount(account),
        support: opts.supportOf(account),
      };
    },
  );

  app.post(
    '/api/v1/account/password',
    {
      schema: {
        operationId: 'changePassword',
        tags,
        summary: 'Change the password',
        description:
          'Needs the current password (wrong ones are throttled like failed log-ins: 429 with Retry-After). Every other session of the account ends at once; the session used for the change stays valid. The account is told by e-mail.',
        body: PasswordChangeSchema,
        response: {
          200: Type.Object(
            { sessions_revoked: Type.Integer({ description: 'Other sessions that were ended.' }) },
            { examples: [SESSIONS_REVOKED_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 429),
        },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) =>
      accounts.changePassword(
        request.principal.accountId as string,
        request.principal.sessionId,
        request.body,
        actorOf(request.principal),
        request.ip,
      ),
  );

  app.put(
    '/api/v1/account/allowlist',
    {
      schema: {
        operationId: 'setAccountAllowlist',
        tags,
        summary: 'Set the account IP allowlist (Business and Enterprise)',
        description:
          'When the list is not empty, requests from other addresses are refused with 403: every request with an API key, and data requests (salary, bulk, catalogue) with a session token. Account management with a session stays reachable from anywhere, so a wrong list can be fixed. Keys may add their own list.',
        body: AllowlistBodySchema,
        response: {
          200: jsonAnswer(Type.Ref('Account'), ALLOWLIST_EXAMPLE),
          ...problemResponses(400, 401, 403),
        },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) =>
      publicAccount(
        await accounts.setAllowlist(request.principal, request.body.allowlist, request.ip),
      ),
  );

  const SchemaField = Type.Object(
    { field: Type.String({ maxLength: 64 }), name: Type.String({ maxLength: 64 }) },
    { additionalProperties: false },
  );
  const SchemaBody = Type.Object(
    { fields: Type.Array(SchemaField, { minItems: 1, maxItems: 64 }) },
    { additionalProperties: false, examples: [RESPONSE_SCHEMA_EXAMPLE] },
  );
  app.addSchema(
    Type.Object(
      {
        fields: Type.Array(SchemaField, {
          maxItems: 64,
          description: 'Empty while the standard schema applies.',
        }),
      },
      { $id: 'ResponseSchema', examples: [RESPONSE_SCHEMA_EXAMPLE] },
    ),
  );

  const setSchema = async (principal: Principal, schema: ResponseSchema | null, ip: string) => {
    assertPlanHas(plans, principal.plan, (p) => p.customSchemas, 'Custom response schemas');
    if (schema !== null) {
      const problems = schemaProblems(schema);
      if (problems.length > 0) {
        throw AppError.invalidParams([
          { name: 'fields', reason: problems.join('; '), allowed: SCHEMA_SOURCE_FIELDS },
        ]);
      }
    }
    const account = await accounts.setResponseSchema(principal, schema, ip);
    return { fields: account.responseSchema?.fields ?? [] };
  };

  app.get(
    '/api/v1/account/schema',
    {
      schema: {
        operationId: 'getResponseSchema',
        tags,
        summary: 'The custom response schema (Enterprise)',
        description:
          'The fields salary responses carry for this account, in order, under the account’s names; empty when the standard schema applies.',
        response: { 200: Type.Ref('ResponseSchema'), ...problemResponses(401, 403) },
      },
      config: { auth: { access: 'account', scope: 'account:read' } },
    },
    async (request) => {
      assertPlanHas(
        plans,
        request.principal.plan,
        (p) => p.customSchemas,
        'Custom response schemas',
      );
      const account = await accounts.get(request.principal.accountId as string);
      return { fields: account.responseSchema?.fields ?? [] };
    },
  );

  app.put(
    '/api/v1/account/schema',
    {
      schema: {
        operationId: 'setResponseSchema',
        tags,
        summary: 'Choose and rename the fields of salary responses (Enterprise)',
        description: `Applies to every salary endpoint and every format. Fields to choose from: ${SCHEMA_SOURCE_FIELDS.join(', ')}.`,
        body: SchemaBody,
        response: { 200: Type.Ref('ResponseSchema'), ...problemResponses(400, 401, 403) },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) => setSchema(request.principal, request.body, request.ip),
  );

  app.delete(
    '/api/v1/account/schema',
    {
      schema: {
        operationId: 'deleteResponseSchema',
        tags,
        summary: 'Back to the standard response schema (Enterprise)',
        description: 'Salary responses carry the standard fields again.',
        response: {
          200: jsonAnswer(Type.Ref('ResponseSchema'), NO_RESPONSE_SCHEMA_EXAMPLE),
          ...problemResponses(401, 403),
        },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) => setSchema(request.principal, null, request.ip),
  );

  app.get(
    '/api/v1/account/audit-log',
    {
      schema: {
        operationId: 'listAuditLog',
        tags,
        summary: 'Security events of the account (newest first), as JSON or CSV',
        description:
          'Sign-ups, log-ins and failed log-ins, keys created, rotated and revoked, allowlist and plan changes, compliance downloads. The log is hash-chained (tamper-evident): `verify=true` walks the chain over the period (`from`, `to`; the whole log without them) and reports whether it checks out or the first broken entry. `format=csv` (or `Accept: text/csv`) exports every entry of the period, oldest first, at most 100,000 (a longer period is refused: export it in parts); with `verify=true` the result is in the `Audit-Chain-Valid` and `Audit-Chain-First-Broken` headers.',
        querystring: Type.Object(
          {
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'JSON only.' }),
            ),
            format: Type.Optional(StringEnum(['json', 'csv'])),
            from: Type.Optional(
              Type.String({ format: 'date-time', description: 'Entries written at or after.' }),
            ),
            to: Type.Optional(
              Type.String({ format: 'date-time', description: 'Entries written before.' }),
            ),
            verify: Type.Optional(Type.Boolean({ default: false })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The entries (JSON), or the export (CSV).',
            content: {
              'application/json': {
                schema: Type.Object({
                  data: Type.Array(AuditEntrySchema),
                  verification: Type.Optional(ChainVerificationSchema),
                }),
                example: AUDIT_LOG_EXAMPLE,
              },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...problemResponses(400, 401),
        },
      },
      config: { auth: { access: 'account', scope: 'account:read' } },
    },
    async (request, reply) => {
      const accountId = request.principal.accountId as string;
      const q = request.query;
      const period = {
        from: q.from === undefined ? undefined : new Date(q.from),
        to: q.to === undefined ? undefined : new Date(q.to),
      };
      if (period.from !== undefined && period.to !== undefined && period.from >= period.to) {
        throw new AppError('INVALID_PARAMETER', 'from must be before to.', {
          extensions: { invalid_params: [{ name: 'from', reason: 'not before to' }] },
        });
      }
      const csv =
        q.format === 'csv' ||
        (q.format === undefined && /text\/csv/i.test(request.headers.accept ?? ''));
      const verification = q.verify === true ? await accounts.verifyAudit(period) : undefined;
      if (!csv) {
        const entries = await accounts.auditLog(accountId, period, q.limit ?? 100);
        return reply.send({
          data: entries.map(({ account_id: _, ...entry }) => entry),
          ...(verification === undefined ? {} : { verification }),
        });
      }
      const entries = await accounts.auditExport(accountId, period, MAX_AUDIT_EXPORT + 1);
      if (entries.length > MAX_AUDIT_EXPORT) {
        throw new AppError(
          'INVALID_PARAMETER',
          `The period holds more than ${MAX_AUDIT_EXPORT} entries; export it in parts with from and to.`,
          {
            extensions: {
              invalid_params: [{ name: 'from', reason: 'period too long for one export' }],
            },
          },
        );
      }
      if (verification !== undefined) {
        reply.header('audit-chain-valid', String(verification.valid));
        if (verification.first_broken !== null)
          reply.header('audit-chain-first-broken', String(verification.first_broken.id));
      }
      const stamp = new Date(clock.now()).toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-log-${stamp}.csv"`)
        .header('cache-control', 'no-store')
        .send(auditCsv(entries));
    },
  );
};

export { AccountSchema, SessionSchema };

/** RFC 4180, CRLF; `data` as JSON text in one column. */
function auditCsv(entries: readonly AuditRow[]): string {
  return stringify(
    [
      ['id', 'created_at', 'actor', 'action', 'ip', 'data'],
      ...entries.map((e) =>
        [e.id, e.created_at, e.actor, e.action, e.ip, JSON.stringify(e.data)].map(safeCell),
      ),
    ],
    { record_delimiter: 'windows' },
  );
}
