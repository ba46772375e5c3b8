import { runAsFunction } from '#shared/environment.ts';
import type { FunctionName } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';

export interface LocalSchedule {
  /** One run now, as the schedule would start it; its failure is the run's own. */
  run(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A schedule of the local API, as EventBridge Scheduler runs one in AWS: the same function, in its
 * own scope (its grants), one run at a time, every `intervalMs` after the previous run ends, a run
 * that fails leaving its work to the next. An interval of 0 runs it only when asked (`run`).
 */
export function startLocalSchedule(functionName: FunctionName, handler: () => Promise<unknown>, intervalMs: number): LocalSchedule {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    // After the previous run, whatever its outcome.
    running = running
      .catch(() => undefined)
      .then(() => runAsFunction(localFunctionScope(functionName), () => handler()).then(() => undefined));
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
