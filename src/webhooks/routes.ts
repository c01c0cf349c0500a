import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import {
  DELIVERY_EXAMPLE,
  DELIVERY_LIST_EXAMPLE,
  NEW_WEBHOOK_EXAMPLE,
  REDELIVERY_EXAMPLE,
  ROTATED_WEBHOOK_EXAMPLE,
  WEBHOOK_EXAMPLE,
  WEBHOOK_LIST_EXAMPLE,
  WEBHOOK_TEST_EXAMPLE,
} from './examples.js';
import { EVENT_TYPES, type WebhookService } from './service.js';

const time = Type.String({ format: 'date-time' });
const nullableTime = Type.Union([time, Type.Null()]);

export const WebhookSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ format: 'uri' }),
    events: Type.Array(Type.String()),
    status: StringEnum(['enabled', 'disabled']),
    disabled_reason: Type.Union([Type.String(), Type.Null()]),
    failing_since: nullableTime,
    created_at: time,
    updated_at: time,
  },
  { $id: 'Webhook', examples: [WEBHOOK_EXAMPLE] },
);

export const NewWebhookSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'The signing secret (`whsec_…`), shown only in this response (null in an idempotent replay).',
    }),
  },
  {
    $id: 'NewWebhook',
    examples: [NEW_WEBHOOK_EXAMPLE],
  },
);

const AttemptSchema = Type.Object({
  attempt: Type.Integer(),
  started_at: time,
  duration_ms: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Time to the response; null when none came.',
  }),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  ok: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'null, the status class ("HTTP 5xx"), "no response" (any network failure: the reason is logged for the operator, not shown) or "not sent".',
  }),
});

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String({ description: 'Sent as the webhook-id header.' }),
    event_type: Type.String(),
    status: StringEnum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    next_attempt_at: Type.Union([time, Type.Null()], {
      description: 'When pending: the next try.',
    }),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: time,
    completed_at: nullableTime,
    attempt_log: Type.Array(AttemptSchema),
  },
  { $id: 'WebhookDelivery', examples: [DELIVERY_EXAMPLE] },
);

export const webhookSchemas = [WebhookSchema, NewWebhookSchema, DeliverySchema];

// The event names are checked in the service, so an unknown kind is a 400 that lists the known ones.
const EventsInput = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: 10,
  description: `Event kinds: ${EVENT_TYPES.join(', ')}.`,
});
/** A receiver's URL: what the API and the dashboard's form accept. */
export const WebhookUrlSchema = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL of the receiver.',
});
const CreateBody = Type.Object(
  { url: WebhookUrlSchema, events: EventsInput },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    url: Type.Optional(WebhookUrlSchema),
    events: Type.Optional(EventsInput),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled endpoint.' })),
  },
  { additionalProperties: false },
);
const Params = Type.Object({ id: Type.String({ pattern: '^wh_[A-Za-z0-9_-]{1,40}$' }) });
const DeliveryParams = Type.Object({
  id: Type.String({ pattern: '^wh_[A-Za-z0-9_-]{1,40}$' }),
  delivery_id: Type.String({ pattern: '^dlv_[A-Za-z0-9_-]{1,40}$' }),
});

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (
  app,
  { webhooks },
) => {
  const tags = ['Webhooks'];
  const read = { auth: { access: 'account', scope: 'webhooks:read' } } as const;
  const write = { auth: { access: 'account', scope: 'webhooks:write' } } as const;

  app.post(
    '/api/v1/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Business (10 endpoints) and Enterprise (50). The URL must be https and resolve to a public address. The signing secret is in this response only; store it.',
        body: CreateBody,
        response: { 201: Type.Ref('NewWebhook'), ...problemResponses(400, 401, 403, 409) },
      },
      config: write,
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.create(request.principal, request.body, request.ip)),
  );

  app.get(
    '/api/v1/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'List webhook endpoints (never the secrets)',
        description: 'Every endpoint of the account with its URL, events and status.',
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('Webhook')) },
            { examples: [WEBHOOK_LIST_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => ({ data: await webhooks.list(request.principal) }),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'One webhook endpoint',
        description: 'Another account’s endpoint is 404.',
        params: Params,
        response: { 200: Type.Ref('Webhook'), ...problemResponses(400, 401, 403, 404) },
      },
      config: read,
    },
    async (request) => webhooks.get(request.principal, request.params.id),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change the URL or events, or disable or re-enable an endpoint',
        description:
          'Re-enabling clears the disabled reason and the failure streak. A new URL is checked as at registration.',
        params: Params,
        body: UpdateBody,
        response: { 200: Type.Ref('Webhook'), ...problemResponses(400, 401, 403, 404) },
      },
      config: write,
    },
    async (request) =>
      webhooks.update(request.principal, request.params.id, request.body, request.ip),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete an endpoint and its delivery log',
        description: 'Pending deliveries to it are dropped.',
        params: Params,
        response: {
          204: Type.Null({ description: 'Deleted.' }),
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: write,
    },
    async (request, reply) => {
      await webhooks.remove(request.principal, request.params.id, request.ip);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Returns the new secret once. For 24 hours deliveries carry two signatures (new and old secret), so receivers can switch without missing events.',
        params: Params,
        response: {
          200: Type.Object(
            { ...NewWebhookSchema.properties, previous_secret_expires_at: time },
            { examples: [ROTATED_WEBHOOK_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: write,
    },
    async (request) => webhooks.rotateSecret(request.principal, request.params.id, request.ip),
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Send a signed test event now',
        description:
          'Sends a `webhook.test` event and reports the status code and time taken. The receiver’s response body is never read or returned.',
        params: Params,
        response: {
          200: Type.Object(
            {
              ok: Type.Boolean({ description: 'true when the receiver answered 2xx.' }),
              status_code: Type.Union([Type.Integer(), Type.Null()]),
              duration_ms: Type.Union([Type.Integer(), Type.Null()], {
                description: 'Time to the response; null when none came.',
              }),
              error: Type.Union([Type.String(), Type.Null()], {
                description:
                  'null, the status class ("HTTP 4xx") or "no response": network reasons are not shown.',
              }),
            },
            { examples: [WEBHOOK_TEST_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 404, 429),
        },
      },
      config: write,
    },
    async (request) => webhooks.sendTest(request.principal, request.params.id),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'Deliveries of an endpoint, newest first, with their attempts',
        description:
          'Status, attempts (time, duration, status code, error), next retry. Response bodies are never stored.',
        params: Params,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
        }),
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('WebhookDelivery')) },
            { examples: [DELIVERY_LIST_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: read,
    },
    async (request) => ({
      data: await webhooks.deliveries(
        request.principal,
        request.params.id,
        request.query.limit ?? 50,
      ),
    }),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhook',
        tags,
        summary: 'Send a delivery’s event again',
        description:
          'Queues the same event (same webhook-id) as a new delivery, due now; the endpoint must be enabled.',
        params: DeliveryParams,
        response: {
          202: jsonAnswer(Type.Ref('WebhookDelivery'), REDELIVERY_EXAMPLE),
          ...problemResponses(400, 401, 403, 404, 409, 429),
        },
      },
      config: write,
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await webhooks.redeliver(
            request.principal,
            request.params.id,
            request.params.delivery_id,
            request.ip,
          ),
        ),
  );
};
