/** The stored shapes of webhooks and their deliveries: plain declarations, light enough for the OpenAPI function. */

/** The events a webhook can receive. */
export const webhookEvents = [
  'submission.graded',
  'submission.failed',
  'summaries.generated',
  'inquiry.opened',
  'inquiry.resolved',
  'similarity.completed',
] as const;
export type WebhookEventType = (typeof webhookEvents)[number];

export interface Webhook {
  readonly term: string;
  readonly course: string;
  readonly webhookId: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly description: string;
  readonly createdAt: string;
  readonly createdBy: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  readonly at: string;
  /** The receiver's HTTP status; null when there was no answer (refused, time-out, address). */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why the attempt failed, when there was no HTTP answer. */
  readonly error?: string;
  /** The start of the receiver's answer (at most 200 characters). */
  readonly response?: string;
}

/** One event on its way to one webhook (shared/webhooks/delivery.ts has the rules of its retries). */
export interface Delivery {
  readonly term: string;
  readonly course: string;
  readonly webhookId: string;
  /** The message id: also the `webhook-id` header. */
  readonly deliveryId: string;
  readonly event: WebhookEventType;
  /** The body exactly as signed and sent. */
  readonly payload: string;
  readonly state: DeliveryState;
  readonly attempts: readonly DeliveryAttempt[];
  /** Attempts made before the current round (a replay starts a new round). */
  readonly roundStart: number;
  readonly createdAt: string;
  readonly nextAttemptAt?: string;
}
