import { handler } from '#functions/webhook-relay/handler.ts';
import { WEBHOOK_RELAY_FUNCTION } from '#infra/function-access.ts';
import { startLocalSchedule, type LocalSchedule } from './schedule.ts';

/** How often the local API runs the outbox relay (AWS's schedule runs it every minute). */
export const LOCAL_OUTBOX_INTERVAL_MS = 1_000;

export type LocalOutboxRelay = LocalSchedule;

/** The schedule of the webhook outbox relay on the local API (schedule.ts). An interval of 0 runs it only when asked (`run`). */
export const startLocalOutboxRelay = (intervalMs = LOCAL_OUTBOX_INTERVAL_MS): LocalOutboxRelay =>
  startLocalSchedule(WEBHOOK_RELAY_FUNCTION, handler, intervalMs);
