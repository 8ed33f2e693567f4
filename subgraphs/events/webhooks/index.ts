// The webhook module's public face for the events service (docs/webhooks.md).
export {
  createWebhookModule,
  type WebhookEvent,
  type WebhookModule,
  type WebhookModuleOptions,
} from './webhook.module';
export { loadWebhookConfig, parseBackoff, type WebhookConfig } from './webhook.config';
export type { Endpoint, EndpointInput, EndpointService, RotatedSecret } from './endpoint.service';
export type { Jwks, PublicJwk } from './webhook.signer';
export { AddressRefusedError } from './address.guard';
export { WebhookService } from './webhook.service';
export type { DeliveryRow, MessageRow } from './delivery.store';
