import { handler } from '#functions/webhook-relay/handler.ts';
import { runAsFunction } from '#shared/environment.ts';
import { WEBHOOK_RELAY_FUNCTION } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';

/** How often the local API runs the outbox relay (AWS's schedule runs it every minute). */
export const LOCAL_OUTBOX_INTERVAL_MS = 1_000;

export interface LocalOutboxRelay {
  /** One run now, as the schedule would start it; its failure (the queue refusing) is the run's own. */
  run(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The schedule of the webhook outbox relay on the local API: the same function as in AWS, in its
 * own scope (its grants), one run at a time, a run that fails leaving the entries to the next.
 * An interval of 0 runs it only when asked (`run`).
 */
export function startLocalOutboxRelay(intervalMs = LOCAL_OUTBOX_INTERVAL_MS): LocalOutboxRelay {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    // After the previous run, whatever its outcome.
    running = running
      .catch(() => undefined)
      .then(() => runAsFunction(localFunctionScope(WEBHOOK_RELAY_FUNCTION), () => handler()).then(() => undefined));
    return running;
  };
  const tick = () => {
    if (intervalMs <= 0) return;
    timer = setTimeout(() => {
      if (stopped) return;
      void run()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) tick();
        });
    }, intervalMs);
  };
  tick();
  return {
    run,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
