import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/index.js';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import {
  SESSIONS_REVOKED_EXAMPLE,
  VERIFICATION_MAIL_EXAMPLE,
  VERIFIED_ACCOUNT_EXAMPLE,
} from './examples.js';
import { publicAccount, type AccountService } from './service.js';

const TokenSchema = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The token of the mailed link (its `token` query parameter).',
});

const NewPasswordSchema = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'At least 12 characters, not the e-mail address.',
});

/** The answer to every reset request: it does not tell whether the address has an account. */
const RESET_MAILED =
  'If an account has this address, a link to choose a new password was mailed to it; it works once, for one hour.';

/** Password reset and e-mail verification by mailed single-use links. */
export const accountLifecycleRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountService;
}> = async (app, { accounts }) => {
  const tags = ['Account'];

  app.post(
    '/api/v1/password-reset',
    {
      schema: {
        operationId: 'requestPasswordReset',
        tags,
        summary: 'Ask for a password reset link',
        description:
          'When an account has this address, a single-use link valid for one hour is mailed to it. The answer is the same, and takes as long, whether or not an account has the address. At most 3 requests per address an hour, and 10 per client address (429 with Retry-After).',
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 254, examples: ['ada@example.com'] }) },
          { additionalProperties: false },
        ),
        response: {
          202: Type.Object({ detail: Type.String() }, { examples: [{ detail: RESET_MAILED }] }),
          ...problemResponses(400, 429),
        },
      },
      config: { auth: { access: 'public' } },
    },
    async (request, reply) => {
      await accounts.requestPasswordReset(request.body.email, request.ip);
      return reply.code(202).send({ detail: RESET_MAILED });
    },
  );

  app.post(
    '/api/v1/password-reset/confirm',
    {
      schema: {
        operationId: 'resetPassword',
        tags,
        summary: 'Choose a new password with a mailed reset token',
        description:
          'The token works once, for one hour after it was mailed, and only while the account has the address it was mailed to. Every session of the account ends; API keys stay valid. The account is told by e-mail.',
        body: Type.Object(
          { token: TokenSchema, new_password: NewPasswordSchema },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { sessions_revoked: Type.Integer({ description: 'Sessions that were ended.' }) },
            { examples: [SESSIONS_REVOKED_EXAMPLE] },
          ),
          ...problemResponses(400),
        },
      },
      config: { auth: { access: 'public' } },
    },
    async (request) => accounts.resetPassword(request.body, request.ip),
  );

  app.post(
    '/api/v1/email-verification',
    {
      schema: {
        operationId: 'verifyEmail',
        tags,
        summary: 'Confirm the account’s e-mail address with a mailed token',
        description:
          'The token works once, for seven days after it was mailed, and only while the account has the address it was mailed to.',
        body: Type.Object({ token: TokenSchema }, { additionalProperties: false }),
        response: {
          200: jsonAnswer(Type.Ref('Account'), VERIFIED_ACCOUNT_EXAMPLE),
          ...problemResponses(400),
        },
      },
      config: { auth: { access: 'public' } },
    },
    async (request) => publicAccount(await accounts.verifyEmail(request.body.token, request.ip)),
  );

  app.post(
    '/api/v1/account/email-verification',
    {
      schema: {
        operationId: 'sendEmailVerification',
        tags,
        summary: 'Mail a new verification link',
        description:
          'Mails a new link to the account’s address, unless it is verified already (`sent: false`). At most 5 an hour (429 with Retry-After).',
        response: {
          200: Type.Object(
            {
              sent: Type.Boolean(),
              email_verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            },
            { examples: [VERIFICATION_MAIL_EXAMPLE] },
          ),
          ...problemResponses(401, 403, 429),
        },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) => {
      const accountId = request.principal.accountId as string;
      const sent = await accounts.sendVerification(
        accountId,
        actorOf(request.principal),
        request.ip,
      );
      return { sent, email_verified_at: (await accounts.get(accountId)).emailVerifiedAt };
    },
  );
};
