import type { Delivery, DeliveryState } from '#shared/data/webhook-records.ts';
import { stillAttempting } from './failures.ts';

/**
 * One event on its way to one webhook, and the rules of its retries: a delivery is attempted, and
 * retried after each delay of the schedule while the receiver fails (no 2xx answer in time); after
 * the last retry it is `failed` and kept, for the instructor to read and replay.
 */
export type { Delivery, DeliveryAttempt, DeliveryState } from '#shared/data/webhook-records.ts';

/** Deliveries per page of the delivery list unless the request asks for another size. */
export const DELIVERIES_PAGE = 100;

/** Every state a delivery can be in. */
export const deliveryStates = ['pending', 'delivered', 'failed'] as const satisfies readonly DeliveryState[];

/** What to do after an attempt: the new state and, while pending, when to try again. */
export interface NextStep {
  readonly state: DeliveryState;
  readonly nextAttemptAt?: string;
  readonly delaySeconds?: number;
}

export const isSuccessStatus = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/**
 * After attempt number `attemptInRound` (1 for the first) of a round: delivered on a 2xx answer;
 * otherwise retried after `schedule[attemptInRound - 1]` seconds while the schedule lasts, then failed.
 */
export function nextStep(attemptInRound: number, status: number | null, schedule: readonly number[], now: Date): NextStep {
  if (isSuccessStatus(status)) return { state: 'delivered' };
  const delaySeconds = schedule[attemptInRound - 1];
  if (delaySeconds === undefined) return { state: 'failed' };
  return { state: 'pending', delaySeconds, nextAttemptAt: new Date(now.getTime() + delaySeconds * 1000).toISOString() };
}

/** The longest delay SQS can hold a message back; longer waits hop through the queue. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** The delay to ask the queue for (whole seconds, at most 15 minutes) to reach `notBefore`. */
export function queueDelaySeconds(notBefore: string | undefined, now: Date): number {
  if (!notBefore) return 0;
  const remaining = (Date.parse(notBefore) - now.getTime()) / 1000;
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(remaining)));
}

/** A delivery as the instructor reads it. */
export function deliveryRecord(delivery: Delivery) {
  return {
    id: delivery.deliveryId,
    event: delivery.event,
    state: delivery.state,
    created_at: delivery.createdAt,
    next_attempt_at: delivery.state === 'pending' ? (delivery.nextAttemptAt ?? null) : null,
    attempts: delivery.attempts.map((attempt, index) => ({
      attempt: index + 1,
      at: attempt.at,
      status: attempt.status,
      duration_ms: attempt.durationMs,
      error: attempt.error ?? null,
      response: attempt.response ?? null,
    })),
    payload: JSON.parse(delivery.payload) as unknown,
  };
}

/** Why a delivery cannot be replayed now, if it cannot. */
export const replayRefusal = (delivery: Delivery): string | undefined =>
  delivery.state === 'pending' ? stillAttempting.text() : undefined;
