import { config } from '#shared/config.ts';

/** Webhook settings (declared in shared/config.ts), read when used. */
export { DEFAULT_RETRY_SCHEDULE, retrySchedule } from '#shared/config.ts';

/** How long one attempt waits for the receiver's answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** `WEBHOOK_ALLOWED_HOSTS`: hosts (`host` or `host:port`) webhooks may reach although they resolve to private addresses, and over plain http. */
export const allowedWebhookHosts = (): string[] => config('WEBHOOK_ALLOWED_HOSTS');
