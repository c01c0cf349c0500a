export {
  createWebhookService,
  webhookPublisher,
  accountEventPublisher,
  serviceEventPublisher,
  EVENT_TYPES,
  SECRET_ROTATION_GRACE_MS,
  type WebhookService,
  type PublicEndpoint,
} from './service.js';
export { TEST_SEND_RULE, REDELIVERY_RULE, throttleAccount, untilTimeout } from './test-send.js';
export { createWebhookWorker, LEASE_MS, type WebhookWorker } from './worker.js';
export {
  createHttpSender,
  SEND_TIMEOUT_MS,
  NO_RESPONSE,
  type WebhookSender,
  type SendResult,
} from './sender.js';
export { addressRefusal, checkTargetUrl, targetHostRefusal } from './address-guard.js';
export { RETRY_DELAYS_MS, MAX_ATTEMPTS, DISABLE_AFTER_FAILING_MS } from './backoff.js';
export { outboxState } from './repo.js';
export { webhookRoutes, webhookSchemas, WebhookUrlSchema } from './routes.js';
// Webhook-destination exports sign and send their own events through the same pieces.
export { payloadOf } from './service.js';
export { generateSigningSecret, signedHeaders, SECRET_PREFIX } from './signature.js';
